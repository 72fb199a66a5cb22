package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RemotingClientShutdown;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.heartbeat.MessageModel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Transactional producers with check-back, and consumer groups: rebalancing between clients, broadcasting. */
// Every front-end adds its own transaction checker; the gRPC one runs too, so check-back must reach the Remoting
// producer with both registered.
@WithBroker
class RemotingTransactionAndGroupIT {
    private static final Duration DEADLINE = Duration.ofSeconds(40);
    /** A window in which nothing more may arrive: what was received must stay as it is. */
    private static final Duration QUIET = Duration.ofMillis(500);
    private static RunningBroker broker;
    private static DefaultMQProducer producer;

    @BeforeAll
    static void broker(final RunningBroker running) throws Exception {
        broker = running;
        producer = Clients.producer(broker);
    }

    @AfterAll
    static void stop() {
        if (producer != null) {
            producer.shutdown();
        }
    }

    private static DefaultMQPushConsumer push(final String group, final String topic,
                                              final Map<String, MessageExt> sink) throws Exception {
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> sink.put(m.getMsgId() + "@" + sink.size(), m));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        return consumer;
    }

    @Test
    void shouldCommitRollBackAndCheckBackTransactions() throws Exception {
        final String topic = Names.unique("tx");
        producer.send(new Message(topic, "init", "init".getBytes(StandardCharsets.UTF_8)));
        final List<String> checked = new CopyOnWriteArrayList<>();
        final TransactionMQProducer tx = new TransactionMQProducer(Names.unique("txg"));
        tx.setNamesrvAddr(broker.nameServer());
        tx.setInstanceName(Names.unique("p"));
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
                checked.add(msg.getTopic() + ":" + new String(msg.getBody(), StandardCharsets.UTF_8));
                return LocalTransactionState.COMMIT_MESSAGE;
            }
        });
        tx.start();
        try {
            for (String body : new String[] {"commit", "rollback", "unknown"}) {
                final Message m = new Message(topic, "X", body.getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("CHECK_IMMUNITY_TIME_IN_SECONDS", "1");
                final TransactionSendResult r = tx.sendMessageInTransaction(m, null);
                assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            }
            await().atMost(DEADLINE).until(() -> checked.contains(topic + ":unknown"));
            final List<MessageExt> got = Clients.drain(broker, topic, 3, Duration.ofSeconds(10));
            assertThat(got).extracting(m -> new String(m.getBody(), StandardCharsets.UTF_8))
                    .containsExactlyInAnyOrder("init", "commit", "unknown");
            assertThat(checked).doesNotContain(topic + ":commit", topic + ":rollback");
        } finally {
            // The test's last use of it: no need to wait for the client's idle last step.
            RemotingClientShutdown.inBackground(tx::shutdown);
        }
    }

    @Test
    void shouldSplitQueuesBetweenTheClientsOfAGroupWithoutDuplicates() throws Exception {
        final String topic = Names.unique("rb");
        // UPDATE_AND_CREATE_TOPIC: the producer then uses all 8 queues from the start
        producer.createTopic("TBW102", topic, 8, Map.of());
        producer.send(new Message(topic, "init", "init".getBytes(StandardCharsets.UTF_8)));
        final String group = Names.unique("rbg");
        final Map<String, MessageExt> first = new ConcurrentHashMap<>();
        final Map<String, MessageExt> second = new ConcurrentHashMap<>();
        final DefaultMQPushConsumer a = push(group, topic, first);
        final DefaultMQPushConsumer b = push(group, topic, second);
        a.start();
        try {
            await().atMost(DEADLINE).until(() -> first.size() >= 1); // "init"
            b.start();
            try {
                // b's heartbeat notifies a: both rebalance until each holds a share of the 8 queues, none twice
                await().atMost(DEADLINE).until(() -> Clients.heldQueues(b, topic) > 0
                        && Clients.heldQueues(a, topic) + Clients.heldQueues(b, topic) == 8);
                for (int i = 0; i < 64; i++) {
                    producer.send(new Message(topic, "R", ("r" + i).getBytes(StandardCharsets.UTF_8)));
                }
                await().atMost(DEADLINE).until(() -> first.size() + second.size() >= 65);
                // no message may reach both members
                await("nothing more arrives").during(QUIET).atMost(QUIET.multipliedBy(3))
                        .until(() -> first.size() + second.size() == 65);
                final List<String> all = new java.util.ArrayList<>();
                first.values().forEach(m -> all.add(m.getMsgId()));
                second.values().forEach(m -> all.add(m.getMsgId()));
                assertThat(all).doesNotHaveDuplicates().hasSize(65);
                assertThat(second).isNotEmpty();
                final Set<Integer> queuesA = new java.util.HashSet<>();
                final Set<Integer> queuesB = new java.util.HashSet<>();
                first.values().stream().filter(m -> "R".equals(m.getTags())).forEach(m -> queuesA.add(m.getQueueId()));
                second.values().forEach(m -> queuesB.add(m.getQueueId()));
                assertThat(queuesA).doesNotContainAnyElementsOf(queuesB);
            } finally {
                // The test's last use of both: no need to wait for the clients' idle last step.
                RemotingClientShutdown.inBackground(b::shutdown);
            }
        } finally {
            RemotingClientShutdown.inBackground(a::shutdown);
        }
    }

    @Test
    void shouldDeliverEveryMessageToEveryBroadcastingClient() throws Exception {
        final String topic = Names.unique("bc");
        producer.send(new Message(topic, "init", "init".getBytes(StandardCharsets.UTF_8)));
        final String group = Names.unique("bcg");
        final Map<String, MessageExt> first = new ConcurrentHashMap<>();
        final Map<String, MessageExt> second = new ConcurrentHashMap<>();
        final DefaultMQPushConsumer a = push(group, topic, first);
        final DefaultMQPushConsumer b = push(group, topic, second);
        a.setMessageModel(MessageModel.BROADCASTING);
        b.setMessageModel(MessageModel.BROADCASTING);
        a.start();
        b.start();
        try {
            final int queues = producer.fetchPublishMessageQueues(topic).size();
            await().atMost(DEADLINE).until(() -> Clients.heldQueues(a, topic) == queues
                    && Clients.heldQueues(b, topic) == queues); // broadcasting: each client reads every queue
            for (int i = 0; i < 10; i++) {
                producer.send(new Message(topic, "B", ("b" + i).getBytes(StandardCharsets.UTF_8)));
            }
            await().atMost(DEADLINE).until(() -> countTag(first, "B") >= 10 && countTag(second, "B") >= 10);
        } finally {
            a.shutdown();
            b.shutdown();
        }
    }

    private static long countTag(final Map<String, MessageExt> sink, final String tag) {
        return sink.values().stream().filter(m -> tag.equals(m.getTags())).count();
    }
}
