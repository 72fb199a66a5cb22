package io.junction.conformance.rocketmq4;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * Pull consumption as 4.x applications do it by hand: {@code DefaultMQPullConsumer} reads every queue of a topic
 * from offset 0 with a tag filter, commits where it stopped and reads the committed offsets back from the broker;
 * then a {@code DefaultLitePullConsumer} assigned all queues seeks queue 0 to offset 1 and reads from there.
 *
 * <p>Events: {@code received} (via {@code pull} or {@code lite-pull-assign}), {@code committed} per queue
 * (offset read back from the broker), {@code max} per queue (the broker's max offset).
 */
final class PullScenario implements Scenario {
    static final int PER_TAG = 8;

    @Override
    public String name() {
        return "pull";
    }

    @Override
    @SuppressWarnings("deprecation") // DefaultMQPullConsumer: deprecated in 4.9, still what many 4.x applications use
    public void run(final DriverContext context) throws Exception {
        final String topic = context.name("pull");
        final DefaultMQProducer producer = context.producer();
        try {
            for (int i = 0; i < PER_TAG; i++) {
                producer.send(new Message(topic, "P", ("P-" + i).getBytes(StandardCharsets.UTF_8)));
                producer.send(new Message(topic, "Q", ("Q-" + i).getBytes(StandardCharsets.UTF_8)));
            }
        } finally {
            producer.shutdown();
        }
        final DefaultMQPullConsumer pull = new DefaultMQPullConsumer(context.name("pullg"));
        context.configure(pull);
        pull.start();
        final List<MessageQueue> queues = new ArrayList<>();
        try {
            final Set<MessageQueue> found = pull.fetchSubscribeMessageQueues(topic);
            queues.addAll(found);
            queues.sort(MessageQueue::compareTo);
            awaitIndexed(pull, queues, 2L * PER_TAG, context);
            for (MessageQueue mq : queues) {
                long offset = 0;
                while (!context.expired()) {
                    final PullResult r = pull.pull(mq, "P", offset, 32);
                    if (r.getPullStatus() == PullStatus.FOUND) {
                        for (MessageExt m : r.getMsgFoundList()) {
                            Events.received(name(), "pull", m);
                        }
                    }
                    offset = r.getNextBeginOffset();
                    if (r.getPullStatus() != PullStatus.FOUND) {
                        break;
                    }
                }
                Events.emit("max", "scenario", name(), "queue", mq.getQueueId(), "offset", pull.maxOffset(mq));
                pull.updateConsumeOffset(mq, offset);
            }
            pull.getOffsetStore().persistAll(new HashSet<>(queues));
            for (MessageQueue mq : queues) {
                Events.emit("committed", "scenario", name(), "queue", mq.getQueueId(), "offset",
                        pull.fetchConsumeOffset(mq, true));
            }
        } finally {
            pull.shutdown();
        }

        final DefaultLitePullConsumer lite = new DefaultLitePullConsumer(context.name("assigng"));
        context.configure(lite);
        lite.setAutoCommit(false);
        lite.start();
        try {
            final MessageQueue first = queues.get(0);
            lite.assign(queues);
            for (MessageQueue mq : queues) {
                lite.seek(mq, mq.equals(first) ? 1 : 0);
            }
            int got = 0;
            final long total = 2L * PER_TAG - 1;
            while (got < total && !context.expired()) {
                for (MessageExt m : lite.poll(500)) {
                    Events.received(name(), "lite-pull-assign", m);
                    got++;
                }
            }
        } finally {
            lite.shutdown();
        }
    }

    /**
     * Waits (at most 10 s) until the queues' max offsets cover {@code sent} messages. A send is acknowledged once the
     * record is in the commit log, and queue entries are built from the log asynchronously, in RocketMQ as in
     * Junction: a pull issued right after the last send may still find a queue without its newest entries (seen once
     * on a CI machine loaded with other broker processes). A 4.x application pulling at once sees the same.
     */
    @SuppressWarnings("deprecation")
    private static void awaitIndexed(final DefaultMQPullConsumer pull, final List<MessageQueue> queues,
                                     final long sent, final DriverContext context) throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline && !context.expired()) {
            long indexed = 0;
            for (MessageQueue mq : queues) {
                indexed += pull.maxOffset(mq);
            }
            if (indexed >= sent) {
                return;
            }
            Thread.sleep(20);
        }
    }
}
