package io.junction.conformance.rocketmq4;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;

/** Where the broker is, how long scenarios may run, and client set-up with names no two scenarios share. */
final class DriverContext {
    private static final AtomicInteger SEQ = new AtomicInteger();

    private final String nameServer;
    private final String prefix;
    private final long deadlineNanos;

    DriverContext(final String nameServer, final String prefix, final long deadlineNanos) {
        this.nameServer = nameServer;
        this.prefix = prefix;
        this.deadlineNanos = deadlineNanos;
    }

    /** A topic or group name unique to this run. */
    String name(final String what) {
        return prefix + "-" + what + "-" + SEQ.incrementAndGet();
    }

    /** Milliseconds left before the run's deadline (at least 1). */
    long millisLeft() {
        return Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000);
    }

    boolean expired() {
        return System.nanoTime() - deadlineNanos > 0;
    }

    DefaultMQProducer producer() throws MQClientException {
        final DefaultMQProducer producer = new DefaultMQProducer(name("pg"));
        configure(producer);
        producer.start();
        return producer;
    }

    /** Applies the shared settings to any producer or consumer (not started). */
    void configure(final ClientConfig client) {
        client.setNamesrvAddr(nameServer);
        client.setInstanceName(name("i"));
        if (client instanceof DefaultMQProducer p) {
            p.setSendMsgTimeout(5000);
        }
    }

    DefaultMQPushConsumer pushConsumer(final String group) {
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        configure(consumer);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        return consumer;
    }

    /** A lite-pull consumer subscribed to all of {@code topic} from its first offset, started. */
    DefaultLitePullConsumer litePull(final String topic) throws MQClientException {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer(name("lpg"));
        configure(consumer);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.start();
        return consumer;
    }
}
