package io.junction.conformance.support;

import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The store and proxy processes of a cluster test and the clients it opened against them, stopped together at the
 * end: clients first, newest first (a client of a killed node may fail to close: nothing to tell it), then proxies,
 * then stores. Registered as a test's extension ({@code @RegisterExtension}), it does so after each test.
 */
public final class ClusterProcesses implements AutoCloseable, AfterEachCallback {
    /**
     * How long a Remoting client of a cluster test waits for an answer: a call may meet a leader change or a seal,
     * which the client's 3 s default does not outlast on a loaded machine.
     */
    public static final int CLIENT_TIMEOUT_MS = 15_000;

    private final List<RunningBroker> stores = new ArrayList<>();
    private final List<RunningBroker> proxies = new ArrayList<>();
    private final List<AutoCloseable> clients = new ArrayList<>();

    public List<RunningBroker> stores() {
        return stores;
    }

    public List<RunningBroker> proxies() {
        return proxies;
    }

    public List<AutoCloseable> clients() {
        return clients;
    }

    /** A started Remoting producer of {@code group} through {@code node}, closed with the others. */
    public DefaultMQProducer remotingProducer(final RunningBroker node, final String group) throws MQClientException {
        final DefaultMQProducer producer = new DefaultMQProducer(group);
        producer.setNamesrvAddr(node.nameServer());
        producer.setInstanceName(group + "-" + System.nanoTime());
        producer.setSendMsgTimeout(CLIENT_TIMEOUT_MS);
        producer.setMqClientApiTimeout(CLIENT_TIMEOUT_MS);
        producer.start();
        clients.add(producer::shutdown);
        return producer;
    }

    @Override
    public void afterEach(final ExtensionContext context) {
        close();
    }

    @Override
    public void close() {
        for (int i = clients.size() - 1; i >= 0; i--) {
            try {
                clients.get(i).close();
            } catch (Exception e) {
                // a client of a killed or stopped node: nothing to tell it
            }
        }
        proxies.forEach(RunningBroker::close);
        stores.forEach(RunningBroker::close);
    }
}
