package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.body.ConsumerConnection;
import org.apache.rocketmq.remoting.protocol.body.KVTable;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** DefaultMQAdminExt (what mqadmin runs) against the broker jar. */
class RemotingAdminIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static RemotingBroker broker;
    private static DefaultMQProducer producer;
    private static DefaultMQAdminExt admin;

    @BeforeAll
    static void start() throws Exception {
        broker = RemotingBroker.start();
        producer = Clients.producer(broker);
        admin = new DefaultMQAdminExt();
        admin.setNamesrvAddr(broker.nameServer());
        admin.setInstanceName(RemotingBroker.unique("admin"));
        admin.start();
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.shutdown();
        }
        if (producer != null) {
            producer.shutdown();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private static String brokerAddr() {
        return "127.0.0.1:" + broker.port();
    }

    @Test
    void shouldReportTheClusterAndBrokerRuntimeInfo() throws Exception {
        final ClusterInfo cluster = admin.examineBrokerClusterInfo();
        assertThat(cluster.getClusterAddrTable()).containsKey("JunctionCluster");
        assertThat(cluster.getBrokerAddrTable().get("junction").getBrokerAddrs()).containsEntry(0L, brokerAddr());
        final KVTable runtime = admin.fetchBrokerRuntimeStats(brokerAddr());
        assertThat(runtime.getTable()).containsEntry("brokerVersionDesc", "V5_3_3");
    }

    @Test
    void shouldCreateListRouteAndDeleteATopicWithAttributes() throws Exception {
        final String topic = RemotingBroker.unique("admin-topic");
        final TopicConfig config = new TopicConfig(topic, 3, 3);
        config.setAttributes(Map.of("+message.type", "FIFO"));
        admin.createAndUpdateTopicConfig(brokerAddr(), config);

        final TopicRouteData route = admin.examineTopicRouteInfo(topic);
        assertThat(route.getQueueDatas()).hasSize(1);
        assertThat(route.getQueueDatas().get(0).getWriteQueueNums()).isEqualTo(3);
        assertThat(admin.fetchAllTopicList().getTopicList()).contains(topic);

        admin.deleteTopic(topic, "JunctionCluster");
        assertThatThrownBy(() -> admin.examineTopicRouteInfo(topic)).hasMessageContaining("No topic route info");
    }

    @Test
    void shouldShowTopicStatsConsumeStatsAndConnections() throws Exception {
        final String topic = RemotingBroker.unique("stats");
        producer.createTopic("TBW102", topic, 2, Map.of());
        for (int i = 0; i < 6; i++) {
            producer.send(new Message(topic, ("s" + i).getBytes(StandardCharsets.UTF_8)),
                    (mqs, msg, arg) -> mqs.get(0), null);
        }
        // Queue offsets come from the consume queues, which the dispatcher builds just after the append (as in
        // RocketMQ): on a loaded machine the stats may trail the acknowledgement by a moment.
        await().atMost(DEADLINE).untilAsserted(() -> assertThat(admin.examineTopicStats(topic).getOffsetTable()
                .values()).anySatisfy(o -> assertThat(o.getMaxOffset()).isEqualTo(6)));

        final String group = RemotingBroker.unique("statsg");
        final AtomicInteger consumed = new AtomicInteger();
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(RemotingBroker.unique("c"));
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            consumed.addAndGet(msgs.size());
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            await().atMost(DEADLINE).until(() -> consumed.get() >= 6);
            consumer.getDefaultMQPushConsumerImpl().persistConsumerOffset();
            await().atMost(DEADLINE).untilAsserted(() -> {
                final ConsumeStats cs = admin.examineConsumeStats(group);
                assertThat(cs.computeTotalDiff()).isZero();
                assertThat(cs.getOffsetTable().values())
                        .anySatisfy(w -> assertThat(w.getConsumerOffset()).isEqualTo(6));
            });
            final ConsumerConnection connection = admin.examineConsumerConnectionInfo(group);
            assertThat(connection.getConnectionSet()).hasSize(1);
            assertThat(connection.getSubscriptionTable()).containsKey(topic);

            // replay: reset the group to the beginning; the broker tells the online client, which consumes again
            final Map<org.apache.rocketmq.common.message.MessageQueue, Long> reset =
                    admin.resetOffsetByTimestamp(topic, group, 0L, true);
            assertThat(reset).isNotEmpty();
            assertThat(reset.values()).containsOnly(0L);
            await().atMost(DEADLINE).until(() -> consumed.get() >= 12);
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldFindAMessageByOffsetIdUniqueIdAndKey() throws Exception {
        final String topic = RemotingBroker.unique("find");
        final Message msg = new Message(topic, "T", "biz-key-42", "findme".getBytes(StandardCharsets.UTF_8));
        final SendResult sent = producer.send(msg);

        final MessageExt byOffsetId = admin.viewMessage(topic, sent.getOffsetMsgId());
        assertThat(new String(byOffsetId.getBody(), StandardCharsets.UTF_8)).isEqualTo("findme");
        await().atMost(DEADLINE).untilAsserted(() -> {
            final MessageExt byUnique = admin.viewMessage(topic, sent.getMsgId());
            assertThat(byUnique.getKeys()).isEqualTo("biz-key-42");
            assertThat(admin.queryMessage(topic, "biz-key-42", 10, 0, Long.MAX_VALUE).getMessageList())
                    .extracting(m -> new String(m.getBody(), StandardCharsets.UTF_8)).containsExactly("findme");
        });
    }
}
