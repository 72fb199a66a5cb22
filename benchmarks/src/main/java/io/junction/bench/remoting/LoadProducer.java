package io.junction.bench.remoting;

import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

/**
 * The producer side the Remoting load mains share: one started {@code DefaultMQProducer} (the client's log files in
 * the temporary directory, warnings only) and a new topic with a live route, made the same way against Junction and
 * Apache RocketMQ so both brokers are measured from the same starting point.
 */
final class LoadProducer {
    private static final String DEFAULT_TOPIC_KEY = "TBW102";

    private LoadProducer() {
    }

    /**
     * A started producer of group {@code name} (also its instance name, so two runs in one JVM never share a client),
     * with a send timeout long enough for a broker under full load.
     */
    static DefaultMQProducer start(final String nameServer, final String name) throws Exception {
        // Read when the client's logger class loads: before the first client object is made.
        System.setProperty("rocketmq.client.logRoot", System.getProperty("java.io.tmpdir") + "/rocketmq-bench-logs");
        System.setProperty("rocketmq.client.logLevel", "WARN");
        final DefaultMQProducer producer = new DefaultMQProducer(name);
        producer.setNamesrvAddr(nameServer);
        producer.setInstanceName(name);
        producer.setSendMsgTimeout(10_000);
        producer.start();
        return producer;
    }

    /**
     * Creates the topic through its cluster's brokers (UPDATE_AND_CREATE_TOPIC) and waits until it has a route. A
     * broker that just started may not have registered with its name server yet: retried for up to a minute.
     */
    @SuppressWarnings("deprecation") // MQAdmin.createTopic: deprecated in the client, still what it offers producers
    static void createTopic(final DefaultMQProducer producer, final String topic, final int queues)
            throws Exception {
        final boolean[] created = {false};
        untilRouted(topic, () -> {
            if (!created[0]) {
                producer.createTopic(DEFAULT_TOPIC_KEY, topic, queues, Map.of());
                created[0] = true;
            }
            return routeLive(producer, topic, queues);
        });
    }

    /**
     * Waits until a topic made beforehand by an admin tool has a route with at least {@code queues} queues, then
     * makes the route live as {@link #createTopic} does: for entry points that take no topic creation from a client
     * (RocketMQ's proxy answers UPDATE_AND_CREATE_TOPIC with "request type not supported").
     */
    static void awaitTopic(final DefaultMQProducer producer, final String topic, final int queues) throws Exception {
        untilRouted(topic, () -> routeLive(producer, topic, queues));
    }

    /** False while the route has fewer than {@code queues} queues; then sends one message to make the route live. */
    private static boolean routeLive(final DefaultMQProducer producer, final String topic, final int queues)
            throws Exception {
        if (producer.fetchPublishMessageQueues(topic).size() < queues) {
            return false;
        }
        producer.send(new Message(topic, new byte[] {1}));
        return true;
    }

    /**
     * Waits until the topic, made through another entry point (another proxy, whose metadata mirror shows it within
     * about half a second), has a route with at least {@code queues} queues through this producer's name server.
     */
    static void awaitRoute(final DefaultMQProducer producer, final String topic, final int queues) throws Exception {
        untilRouted(topic, () -> producer.fetchPublishMessageQueues(topic).size() >= queues);
    }

    /** Tries every 200 ms until {@code attempt} answers true; it may fail meanwhile, for up to a minute. */
    private static void untilRouted(final String topic, final Callable<Boolean> attempt) throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                if (attempt.call()) {
                    return;
                }
            } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("topic " + topic + " has no route after 60 s");
            }
            Thread.sleep(200);
        }
    }
}
