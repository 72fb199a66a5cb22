package io.junction.conformance.rocketmq4;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * {@code DefaultMQPushConsumer}, concurrently or orderly.
 *
 * <p>Concurrent: {@value #PER_TAG} messages tagged A and as many tagged B; the consumer subscribes to A only and
 * asks for the first delivery of {@code A-0} to be retried (delay level 1), so {@code A-0} arrives twice, the second
 * time with one reconsume. Orderly: {@value #ORDERS} orders of {@value #STEPS} steps each, every order kept in one
 * queue by a selector; the listener receives each order's steps in sequence.
 */
final class PushScenario implements Scenario {
    static final int PER_TAG = 10;
    static final int ORDERS = 3;
    static final int STEPS = 10;

    private final boolean orderly;

    PushScenario(final boolean orderly) {
        this.orderly = orderly;
    }

    @Override
    public String name() {
        return orderly ? "push-orderly" : "push-concurrent";
    }

    @Override
    public void run(final DriverContext context) throws Exception {
        final String topic = context.name(name());
        final DefaultMQProducer producer = context.producer();
        try {
            if (orderly) {
                sendOrders(producer, topic);
            } else {
                for (int i = 0; i < PER_TAG; i++) {
                    producer.send(new Message(topic, "A", ("A-" + i).getBytes(StandardCharsets.UTF_8)));
                    producer.send(new Message(topic, "B", ("B-" + i).getBytes(StandardCharsets.UTF_8)));
                }
            }
        } finally {
            producer.shutdown();
        }
        final Set<String> seen = ConcurrentHashMap.newKeySet();
        final DefaultMQPushConsumer consumer = context.pushConsumer(context.name("pushg"));
        final int expected;
        if (orderly) {
            consumer.subscribe(topic, "*");
            consumer.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
                for (MessageExt m : msgs) {
                    Events.received(name(), "push-orderly", m);
                    seen.add(m.getMsgId());
                }
                return ConsumeOrderlyStatus.SUCCESS;
            });
            expected = ORDERS * STEPS;
        } else {
            consumer.subscribe(topic, "A");
            final Set<String> retried = ConcurrentHashMap.newKeySet();
            consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                for (MessageExt m : msgs) {
                    Events.received(name(), "push-concurrent", m);
                    final String body = new String(m.getBody(), StandardCharsets.UTF_8);
                    if (msgs.size() == 1 && body.equals("A-0") && retried.add(body)) {
                        ctx.setDelayLevelWhenNextConsume(1);
                        return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                    }
                    seen.add(body + "#" + m.getReconsumeTimes());
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            consumer.setConsumeMessageBatchMaxSize(1);
            expected = PER_TAG;
        }
        consumer.start();
        try {
            while (seen.size() < expected && !context.expired()) {
                Thread.sleep(50);
            }
            Thread.sleep(1000); // anything that should not come (tag B, duplicates) has had a chance to
        } finally {
            consumer.shutdown();
        }
    }

    private static void sendOrders(final DefaultMQProducer producer, final String topic) throws Exception {
        for (int step = 0; step < STEPS; step++) {
            for (int order = 0; order < ORDERS; order++) {
                final Message m = new Message(topic, "O", ("o" + order + "-" + step).getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("order", Integer.toString(order));
                m.putUserProperty("step", Integer.toString(step));
                producer.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), order);
            }
        }
    }
}
