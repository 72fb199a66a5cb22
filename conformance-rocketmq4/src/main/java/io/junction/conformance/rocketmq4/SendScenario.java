package io.junction.conformance.rocketmq4;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Every send style of {@code DefaultMQProducer} (sync, async, oneway, batch) to one auto-created topic, then a
 * lite-pull consumer reading the topic back. Events: {@code sent} per send, {@code received} per message read.
 */
final class SendScenario implements Scenario {
    static final int EACH = 3;
    static final int BATCH = 10;

    @Override
    public String name() {
        return "send";
    }

    @Override
    public void run(final DriverContext context) throws Exception {
        final String topic = context.name("send");
        final DefaultMQProducer producer = context.producer();
        try {
            for (int i = 0; i < EACH; i++) {
                final SendResult r = producer.send(message(topic, "sync", i));
                sent("sync", i, r);
            }
            final CountDownLatch async = new CountDownLatch(EACH);
            for (int i = 0; i < EACH; i++) {
                final int index = i;
                producer.send(message(topic, "async", i), new SendCallback() {
                    @Override
                    public void onSuccess(final SendResult r) {
                        sent("async", index, r);
                        async.countDown();
                    }

                    @Override
                    public void onException(final Throwable e) {
                        Events.emit("send-failed", "scenario", name(), "mode", "async", "index", index,
                                "error", e);
                        async.countDown();
                    }
                });
            }
            if (!async.await(context.millisLeft(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("async sends not acknowledged in time");
            }
            for (int i = 0; i < EACH; i++) {
                producer.sendOneway(message(topic, "oneway", i));
                Events.emit("sent", "scenario", name(), "mode", "oneway", "index", i);
            }
            final List<Message> batch = new ArrayList<>();
            for (int i = 0; i < BATCH; i++) {
                batch.add(message(topic, "batch", i));
            }
            sent("batch", 0, producer.send(batch));
        } finally {
            producer.shutdown();
        }
        final DefaultLitePullConsumer consumer = context.litePull(topic);
        try {
            int got = 0;
            while (got < 3 * EACH + BATCH && !context.expired()) {
                for (MessageExt m : consumer.poll(500)) {
                    Events.received(name(), "lite-pull", m);
                    got++;
                }
            }
        } finally {
            consumer.shutdown();
        }
    }

    private void sent(final String mode, final int index, final SendResult r) {
        Events.emit("sent", "scenario", name(), "mode", mode, "index", index, "status", r.getSendStatus(),
                "msgId", r.getMsgId(), "offsetMsgId", r.getOffsetMsgId(), "queue", r.getMessageQueue().getQueueId(),
                "offset", r.getQueueOffset());
    }

    /** Body {@code <mode>-<i>}, tag {@code Tag-<mode>}, key {@code k-<mode>-<i>}, properties mode and i. */
    private static Message message(final String topic, final String mode, final int i) {
        final Message m = new Message(topic, "Tag-" + mode, "k-" + mode + "-" + i,
                (mode + "-" + i).getBytes(StandardCharsets.UTF_8));
        m.putUserProperty("mode", mode);
        m.putUserProperty("i", Integer.toString(i));
        return m;
    }
}
