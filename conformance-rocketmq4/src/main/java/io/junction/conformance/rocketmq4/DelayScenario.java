package io.junction.conformance.rocketmq4;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * A message sent with delay level {@value #LEVEL} (5 s) next to an undelayed one, to a running push consumer.
 * Events: {@code sent} with the time just before the send {@code at}, {@code received} with the arrival time {@code at}.
 */
final class DelayScenario implements Scenario {
    static final int LEVEL = 2;

    @Override
    public String name() {
        return "delay";
    }

    @Override
    public void run(final DriverContext context) throws Exception {
        final String topic = context.name("delay");
        final DefaultMQProducer producer = context.producer();
        try {
            producer.send(new Message(topic, "W", "warm-up".getBytes(StandardCharsets.UTF_8))); // creates the topic
            final CountDownLatch arrived = new CountDownLatch(3);
            final DefaultMQPushConsumer consumer = context.pushConsumer(context.name("delayg"));
            consumer.subscribe(topic, "*");
            consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                for (MessageExt m : msgs) {
                    Events.received(name(), "push-concurrent", m);
                    arrived.countDown();
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            consumer.start();
            try {
                final Message delayed = new Message(topic, "D", "delayed".getBytes(StandardCharsets.UTF_8));
                delayed.setDelayTimeLevel(LEVEL);
                // Each send's time is taken before it: the delay runs from when the broker stored the message,
                // which a send's answer may follow by a good part of a second on a loaded machine.
                final long delayedAt = System.currentTimeMillis();
                Events.emit("sent", "scenario", name(), "body", "delayed", "status",
                        producer.send(delayed).getSendStatus(), "at", delayedAt);
                final long nowAt = System.currentTimeMillis();
                Events.emit("sent", "scenario", name(), "body", "now", "status",
                        producer.send(new Message(topic, "N", "now".getBytes(StandardCharsets.UTF_8)))
                                .getSendStatus(), "at", nowAt);
                arrived.await(context.millisLeft(), TimeUnit.MILLISECONDS);
            } finally {
                consumer.shutdown();
            }
        } finally {
            producer.shutdown();
        }
    }
}
