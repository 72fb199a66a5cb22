package io.junction.conformance.support;

import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/** The RocketMQ admin client (what {@code mqadmin} runs on) as the tests use it. */
public final class RocketMqAdmin {

    private RocketMqAdmin() {
    }

    /**
     * A started admin client of the name server at {@code nameServer}, under an instance name of its own (clients of
     * one JVM sharing an instance name share one connection set and step on each other's shutdown).
     */
    public static DefaultMQAdminExt started(final String nameServer) throws MQClientException {
        final DefaultMQAdminExt admin = new DefaultMQAdminExt();
        admin.setNamesrvAddr(nameServer);
        admin.setInstanceName("admin-" + System.nanoTime());
        admin.start();
        return admin;
    }
}
