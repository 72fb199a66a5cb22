package io.junction.conformance.rocketmq4;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * An orderly push consumer (a new group, the client's default consume-from-where) started before the sends, as
 * Apache RocketMQ's end-to-end suite runs it. Global: {@value #GLOBAL} messages to queue 0. Partition:
 * {@value #PARTITIONED} messages, message i to queue i modulo the queue count. The consumer is suspended from before
 * its start until after the sends, so its first pull after the broker locked the queue for it (where an orderly
 * consumer fixes its offset again) surely comes after them, as the 4.9.3 client's does a second after start.
 * Events: {@code sent} with the queue the broker chose, {@code received} in the order the listener got them.
 */
final class OrderlyScenario implements Scenario {
    static final int GLOBAL = 100;
    static final int PARTITIONED = 240;

    private final boolean global;

    OrderlyScenario(final boolean global) {
        this.global = global;
    }

    @Override
    public String name() {
        return global ? "orderly-global" : "orderly-partition";
    }

    @Override
    public void run(final DriverContext context) throws Exception {
        final String topic = context.name(name());
        final DefaultMQProducer producer = context.producer();
        try {
            producer.send(new Message(topic, "init", "init".getBytes(StandardCharsets.UTF_8))); // creates the topic
            final int count = global ? GLOBAL : PARTITIONED;
            final AtomicInteger received = new AtomicInteger();
            final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(context.name("orderlyg"));
            context.configure(consumer);
            consumer.subscribe(topic, "O");
            consumer.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
                for (MessageExt m : msgs) {
                    Events.received(name(), "push-orderly", m);
                    received.incrementAndGet();
                }
                return ConsumeOrderlyStatus.SUCCESS;
            });
            consumer.suspend();
            consumer.start();
            try {
                for (int i = 0; i < count; i++) {
                    final SendResult r = producer.send(new Message(topic, "O",
                            Integer.toString(i).getBytes(StandardCharsets.UTF_8)),
                            (mqs, msg, arg) -> global ? mqs.get(0) : mqs.get((Integer) arg % mqs.size()), i);
                    Events.emit("sent", "scenario", name(), "body", i, "queue", r.getMessageQueue().getQueueId());
                }
                consumer.resume();
                while (received.get() < count && !context.expired()) {
                    Thread.sleep(50);
                }
                Thread.sleep(1000); // duplicates, if any, have had a chance to come
            } finally {
                consumer.shutdown();
            }
        } finally {
            producer.shutdown();
        }
    }
}
