package io.junction.bench.remoting;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;

/**
 * A push consumer of a fresh group with the client's default settings reading a topic from its first offset until
 * it has seen {@code expected} messages. The rate runs from the first delivery to the last, so the consumer's start
 * and first rebalance do not count.
 */
final class DrainPhase {
    private DrainPhase() {
    }

    /**
     * @param received     messages delivered to the listener (redeliveries included)
     * @param activeNanos  first delivery to last
     * @param totalNanos   consumer start to last delivery (or to the deadline)
     */
    record Result(long received, long activeNanos, long totalNanos) {
        double perSecond() {
            return activeNanos == 0 ? 0 : received * 1e9 / activeNanos;
        }
    }

    static Result run(final String nameServer, final String group, final String topic, final long expected,
                      final long timeoutSeconds) throws Exception {
        final AtomicLong received = new AtomicLong();
        final AtomicLong first = new AtomicLong();
        final AtomicLong last = new AtomicLong();
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(nameServer);
        consumer.setInstanceName(group);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            final long now = System.nanoTime();
            first.compareAndSet(0, now);
            received.addAndGet(msgs.size());
            last.set(now);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        final long start = System.nanoTime();
        final long deadline = start + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        consumer.start();
        try {
            while (received.get() < expected && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        } finally {
            consumer.shutdown();
        }
        final long end = last.get() == 0 ? System.nanoTime() : last.get();
        return new Result(received.get(), last.get() - first.get(), end - start);
    }
}
