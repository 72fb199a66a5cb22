package io.junction.conformance.rocketmq4;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.RequestCallback;
import org.apache.rocketmq.client.utils.MessageUtil;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Request-reply: {@code DefaultMQProducer.request(msg, timeout)} (synchronous) and {@code request(msg, callback,
 * timeout)}, answered by a push consumer with {@code MessageUtil.createReplyMessage}. Events: {@code answered} per
 * request the responder answered (with its send status), {@code replied} per reply the requester got.
 */
final class RequestScenario implements Scenario {
    static final int SYNC = 3;
    static final int CALLBACK = 2;
    private static final long TIMEOUT_MILLIS = 15_000;

    @Override
    public String name() {
        return "request";
    }

    @Override
    // createTopic is deprecated in the 4.9.x client but is what 4.9.x applications call to make a topic.
    @SuppressWarnings("deprecation")
    public void run(final DriverContext context) throws Exception {
        final String topic = context.name("request");
        final DefaultMQProducer requester = context.producer();
        final DefaultMQProducer responder = context.producer();
        final DefaultMQPushConsumer consumer = context.pushConsumer(context.name("responders"));
        final CountDownLatch answered = new CountDownLatch(SYNC + CALLBACK);
        try {
            responder.createTopic("TBW102", topic, 1);
            consumer.subscribe(topic, "*");
            consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                for (MessageExt m : msgs) {
                    final String body = new String(m.getBody(), StandardCharsets.UTF_8);
                    try {
                        final Message reply = MessageUtil.createReplyMessage(m,
                                ("pong:" + body).getBytes(StandardCharsets.UTF_8));
                        Events.emit("answered", "scenario", name(), "body", body, "status",
                                responder.send(reply, TIMEOUT_MILLIS).getSendStatus());
                    } catch (Exception e) {
                        Events.emit("answered", "scenario", name(), "body", body, "error", e);
                    }
                    answered.countDown();
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            consumer.start();

            for (int i = 0; i < SYNC; i++) {
                final Message reply = requester.request(message(topic, "sync-" + i), TIMEOUT_MILLIS);
                replied("sync", reply);
            }
            final CountDownLatch callbacks = new CountDownLatch(CALLBACK);
            for (int i = 0; i < CALLBACK; i++) {
                final AtomicBoolean replied = new AtomicBoolean();
                requester.request(message(topic, "callback-" + i), new RequestCallback() {
                    @Override
                    public void onSuccess(final Message reply) {
                        // The client first reports the request sent, with no reply. When the reply is handled before
                        // the send's answer, 4.9.x reports it twice: from the reply and again from the send's
                        // answer (its send callback passes on whatever reply is already there). Count it once.
                        if (reply != null && replied.compareAndSet(false, true)) {
                            replied("callback", reply);
                            callbacks.countDown();
                        }
                    }

                    @Override
                    public void onException(final Throwable e) {
                        Events.emit("request-failed", "scenario", name(), "error", e);
                        callbacks.countDown();
                    }
                }, TIMEOUT_MILLIS);
            }
            if (!callbacks.await(context.millisLeft(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("callback requests not answered in time");
            }
            // The responder's sends end once the requester took each reply: just after it has them.
            if (!answered.await(context.millisLeft(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the responder's replies were not acknowledged in time");
            }
        } finally {
            consumer.shutdown();
            requester.shutdown();
            responder.shutdown();
        }
    }

    private static Message message(final String topic, final String body) {
        return new Message(topic, body.getBytes(StandardCharsets.UTF_8));
    }

    private void replied(final String mode, final Message reply) {
        Events.emit("replied", "scenario", name(), "mode", mode, "body",
                new String(reply.getBody(), StandardCharsets.UTF_8), "type", reply.getProperty("MSG_TYPE"));
    }
}
