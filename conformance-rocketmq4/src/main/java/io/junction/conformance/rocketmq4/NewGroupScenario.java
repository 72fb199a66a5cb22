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
 * Brand-new consumer groups started after the sends, with the client's default consume-from-where (the last offset):
 * {@value #SENT} messages to a new topic, then a concurrent push consumer and an orderly one, each of its own group.
 * Events: {@code sent}, and {@code received} with {@code via} naming the listener.
 */
final class NewGroupScenario implements Scenario {
    static final int SENT = 10;

    @Override
    public String name() {
        return "new-group";
    }

    @Override
    public void run(final DriverContext context) throws Exception {
        final String topic = context.name("new-group");
        final DefaultMQProducer producer = context.producer();
        try {
            for (int i = 0; i < SENT; i++) {
                final String body = "before-" + i;
                producer.send(new Message(topic, "N", body.getBytes(StandardCharsets.UTF_8)));
                Events.emit("sent", "scenario", name(), "body", body);
            }
        } finally {
            producer.shutdown();
        }
        final Set<String> concurrent = ConcurrentHashMap.newKeySet();
        final DefaultMQPushConsumer first = new DefaultMQPushConsumer(context.name("newg-c"));
        context.configure(first);
        first.subscribe(topic, "*");
        first.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                Events.received(name(), "push-concurrent", m);
                concurrent.add(m.getMsgId());
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        final Set<String> orderly = ConcurrentHashMap.newKeySet();
        final DefaultMQPushConsumer second = new DefaultMQPushConsumer(context.name("newg-o"));
        context.configure(second);
        second.subscribe(topic, "*");
        second.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                Events.received(name(), "push-orderly", m);
                orderly.add(m.getMsgId());
            }
            return ConsumeOrderlyStatus.SUCCESS;
        });
        first.start();
        second.start();
        try {
            while ((concurrent.size() < SENT || orderly.size() < SENT) && !context.expired()) {
                Thread.sleep(50);
            }
            Thread.sleep(1000); // duplicates, if any, have had a chance to come
        } finally {
            first.shutdown();
            second.shutdown();
        }
    }
}
