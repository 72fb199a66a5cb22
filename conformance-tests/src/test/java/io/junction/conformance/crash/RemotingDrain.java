package io.junction.conformance.crash;

import io.junction.conformance.support.BrokerProcess;
import java.time.Duration;
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Reads a whole topic with the RocketMQ Remoting client: a fresh lite-pull consumer group from the first offset, so
 * every message stored in the topic is read exactly once (no crash happens while it reads).
 */
final class RemotingDrain {
    private RemotingDrain() {
    }

    /**
     * Polls until every acknowledged message of {@code stream} has arrived and a poll then comes back empty; fails
     * when the deadline passes first.
     */
    static void drain(final BrokerProcess broker, final String topic, final String stream, final Ledger ledger,
                      final Duration deadline) throws Exception {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("crash-drain-" + stream);
        consumer.setNamesrvAddr(CrashBroker.nameServer(broker));
        consumer.setInstanceName("crash-drain-" + stream);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.start();
        try {
            final long end = System.nanoTime() + deadline.toNanos();
            while (System.nanoTime() < end) {
                final List<MessageExt> batch = consumer.poll(1000);
                for (MessageExt m : batch) {
                    ledger.delivered(m.getBody(), m.getKeys(), "remoting-drain");
                }
                if (batch.isEmpty() && ledger.allAcknowledgedDelivered(stream)) {
                    return;
                }
            }
            throw new AssertionError("Remoting drain of " + topic + ": " + ledger.missing(stream)
                    + " acknowledged messages still missing after " + deadline);
        } finally {
            consumer.shutdown();
        }
    }
}
