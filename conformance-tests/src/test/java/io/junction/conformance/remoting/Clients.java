package io.junction.conformance.remoting;

import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RemotingClientShutdown;
import io.junction.conformance.support.RunningBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/** Client set-up shared by the Remoting conformance tests. */
final class Clients {
    private Clients() {
    }

    static DefaultMQProducer producer(final RunningBroker broker) throws MQClientException {
        final DefaultMQProducer producer = new DefaultMQProducer(Names.unique("pg"));
        producer.setNamesrvAddr(broker.nameServer());
        producer.setInstanceName(Names.unique("p"));
        producer.setSendMsgTimeout(5000);
        producer.start();
        return producer;
    }

    /**
     * The queues of {@code topic} a push consumer holds now: the outcome of its rebalance. A queue enters the table
     * after its start offset was computed, so a message sent once the count is right is read from there.
     */
    static long heldQueues(final DefaultMQPushConsumer consumer, final String topic) {
        return consumer.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().keySet().stream()
                .filter(q -> q.getTopic().equals(topic)).count();
    }

    /**
     * Reads {@code count} messages of a topic from its first offset with a fresh lite-pull group. The consumer takes
     * every queue itself ({@code assign}) instead of waiting for a rebalance to hand them over, which for a new client
     * can take many seconds (the client rebalances every 20 s unless the broker nudges it). A topic that has no route
     * yet (a dead-letter topic whose send-back is still under way) is asked for again until the deadline.
     *
     * <p>The start is the group's consume-from-where (the first offset: the group has none committed), not a
     * {@code seekToBegin} per queue. {@code assign} starts a pull task per queue at once, and each seek interrupts its
     * queue's task; a task interrupted in the middle of a request makes the client close its one connection to the
     * broker, which fails whatever else was in flight on it, such as the next queue's seek.
     */
    static List<MessageExt> drain(final RunningBroker broker, final String topic, final int count,
                                  final Duration deadline) throws MQClientException {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer(Names.unique("drain"));
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.start();
        try {
            consumer.assign(queuesOf(consumer, topic, deadline));
            final List<MessageExt> out = new ArrayList<>();
            final long end = System.nanoTime() + deadline.toNanos();
            while (out.size() < count && System.nanoTime() < end) {
                out.addAll(consumer.poll(500));
            }
            return out;
        } finally {
            // A group of its own that nothing reads again: the test need not wait for the client's idle last step.
            RemotingClientShutdown.inBackground(consumer::shutdown);
        }
    }

    private static Collection<MessageQueue> queuesOf(final DefaultLitePullConsumer consumer, final String topic,
                                                     final Duration deadline) {
        return await().atMost(deadline)
                .pollInterval(Duration.ofMillis(200)).ignoreException(MQClientException.class)
                .until(() -> consumer.fetchMessageQueues(topic), queues -> !queues.isEmpty());
    }
}
