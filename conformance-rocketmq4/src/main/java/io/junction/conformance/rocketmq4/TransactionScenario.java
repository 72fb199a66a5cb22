package io.junction.conformance.rocketmq4;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * {@code TransactionMQProducer}: three half messages whose local transactions commit, roll back and stay unknown;
 * the broker checks the unknown one back (answered with commit). Events: {@code sent} (with the local state),
 * {@code checked} per check-back, then {@code received} for what a consumer can read.
 */
final class TransactionScenario implements Scenario {

    @Override
    public String name() {
        return "transaction";
    }

    @Override
    public void run(final DriverContext context) throws Exception {
        final String topic = context.name("tx");
        final DefaultMQProducer plain = context.producer();
        try {
            plain.send(new Message(topic, "init", "init".getBytes(StandardCharsets.UTF_8))); // creates the topic
        } finally {
            plain.shutdown();
        }
        final Set<String> checked = ConcurrentHashMap.newKeySet();
        final TransactionMQProducer tx = new TransactionMQProducer(context.name("txg"));
        context.configure(tx);
        tx.setTransactionListener(new TransactionListener() {
            @Override
            public LocalTransactionState executeLocalTransaction(final Message msg, final Object arg) {
                return switch (new String(msg.getBody(), StandardCharsets.UTF_8)) {
                    case "commit" -> LocalTransactionState.COMMIT_MESSAGE;
                    case "rollback" -> LocalTransactionState.ROLLBACK_MESSAGE;
                    default -> LocalTransactionState.UNKNOW;
                };
            }

            @Override
            public LocalTransactionState checkLocalTransaction(final MessageExt msg) {
                final String body = new String(msg.getBody(), StandardCharsets.UTF_8);
                Events.emit("checked", "scenario", name(), "body", body, "topic", msg.getTopic(),
                        "transactionId", msg.getTransactionId());
                checked.add(body);
                return LocalTransactionState.COMMIT_MESSAGE;
            }
        });
        tx.start();
        try {
            for (String body : new String[] {"commit", "rollback", "unknown"}) {
                final Message m = new Message(topic, "X", body.getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("CHECK_IMMUNITY_TIME_IN_SECONDS", "1");
                m.putUserProperty("step", body);
                final TransactionSendResult r = tx.sendMessageInTransaction(m, null);
                Events.emit("sent", "scenario", name(), "body", body, "status", r.getSendStatus(), "local",
                        r.getLocalTransactionState(), "transactionId", r.getTransactionId());
            }
            while (!checked.contains("unknown") && !context.expired()) {
                Thread.sleep(50);
            }
        } finally {
            tx.shutdown();
        }
        final DefaultLitePullConsumer consumer = context.litePull(topic);
        try {
            int got = 0;
            long quietUntil = Long.MAX_VALUE;
            // Read until the three expected have come, then one more second for anything that should not.
            while (!context.expired() && System.currentTimeMillis() < quietUntil) {
                for (MessageExt m : consumer.poll(300)) {
                    Events.received(name(), "lite-pull", m);
                    got++;
                }
                if (got >= 3 && quietUntil == Long.MAX_VALUE) {
                    quietUntil = System.currentTimeMillis() + 1000;
                }
            }
        } finally {
            consumer.shutdown();
        }
    }
}
