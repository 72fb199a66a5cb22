package io.junction.conformance.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The store and proxy processes of a cluster test and the clients it opened against them, stopped together at the
 * end: clients first, side by side (a client of a killed node may fail to close: nothing to tell it), then proxies,
 * then stores. Registered as a test's extension ({@code @RegisterExtension}), it does so after each test.
 *
 * <p>Side by side because each client has connections and threads of its own, and a RocketMQ Remoting client's
 * shutdown ends by joining an idle event thread that polls every 3 s: one after another, a test's few clients added
 * those waits up (seen: 4 s of a test's teardown in one admin client's shutdown).
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
        final List<Thread> closers = new ArrayList<>();
        for (AutoCloseable client : clients) {
            final Thread closer = new Thread(() -> {
                try {
                    client.close();
                } catch (Exception e) {
                    // a client of a killed or stopped node: nothing to tell it
                }
            }, "cluster-test-client-close");
            closer.setDaemon(true);
            closer.start();
            closers.add(closer);
        }
        // A client that does not close within a minute is left to its daemon thread: the processes stop regardless.
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Thread closer : closers) {
            try {
                closer.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        proxies.forEach(RunningBroker::close);
        stores.forEach(RunningBroker::close);
    }
}
