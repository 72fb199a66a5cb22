package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RocketMqAdmin;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.JarFile;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.body.ConsumerConnection;
import org.apache.rocketmq.remoting.protocol.body.KVTable;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** DefaultMQAdminExt (what mqadmin runs) against the broker jar. */
@WithBroker
class RemotingAdminIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static RunningBroker broker;
    private static DefaultMQProducer producer;
    private static DefaultMQAdminExt admin;
    private static long startedBefore;

    @BeforeAll
    static void broker(final RunningBroker running) throws Exception {
        broker = running;
        startedBefore = broker.process().startedAtMillis();
        producer = Clients.producer(broker);
        admin = RocketMqAdmin.started(broker.nameServer());
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.shutdown();
        }
        if (producer != null) {
            producer.shutdown();
        }
    }

    private static String brokerAddr() {
        return broker.nameServer();
    }

    /** The version the broker jar under test was built as (its manifest's Implementation-Version). */
    private static String builtVersion() throws IOException {
        try (JarFile jar = new JarFile(System.getProperty("junction.jar"))) {
            return jar.getManifest().getMainAttributes().getValue("Implementation-Version");
        }
    }

    private static long figure(final KVTable table, final String key) {
        assertThat(table.getTable()).containsKey(key);
        return Long.parseLong(table.getTable().get(key));
    }

    /** The first of the three rates RocketMQ writes (last 10 seconds, minute, 10 minutes). */
    private static double lastTenSeconds(final KVTable table, final String key) {
        assertThat(table.getTable()).containsKey(key);
        final String[] rates = table.getTable().get(key).split(" ");
        assertThat(rates).hasSize(3);
        return Double.parseDouble(rates[0]);
    }

    @Test
    void shouldReportTheClusterAndTheBrokersRealRuntimeFigures() throws Exception {
        final ClusterInfo cluster = admin.examineBrokerClusterInfo();
        assertThat(cluster.getClusterAddrTable()).containsKey("JunctionCluster");
        assertThat(cluster.getBrokerAddrTable().get("junction").getBrokerAddrs()).containsEntry(0L, brokerAddr());

        final KVTable before = admin.fetchBrokerRuntimeStats(brokerAddr());
        assertThat(builtVersion()).isNotBlank();
        assertThat(before.getTable()).containsEntry("brokerVersionDesc", builtVersion());
        assertThat(figure(before, "bootTimestamp")).isBetween(startedBefore, System.currentTimeMillis());
        assertThat(before.getTable().get("runtime")).matches("\\[ \\d+ days, \\d+ hours, \\d+ minutes, \\d+ seconds ]");
        assertThat(Double.parseDouble(before.getTable().get("commitLogDiskRatio"))).isBetween(0.0, 1.0);

        final String topic = Names.unique("figures");
        for (int i = 0; i < 20; i++) {
            producer.send(new Message(topic, ("f" + i).getBytes(StandardCharsets.UTF_8)));
        }
        assertThat(Clients.drain(broker, topic, 20, DEADLINE)).hasSize(20);
        // Rates are sampled once a second: the 20 sends and reads show within a few seconds.
        await().atMost(DEADLINE).untilAsserted(() -> {
            final KVTable after = admin.fetchBrokerRuntimeStats(brokerAddr());
            assertThat(figure(after, "msgPutTotalTodayNow") - figure(before, "msgPutTotalTodayNow"))
                    .isGreaterThanOrEqualTo(20);
            assertThat(figure(after, "msgGetTotalTodayNow") - figure(before, "msgGetTotalTodayNow"))
                    .isGreaterThanOrEqualTo(20);
            assertThat(figure(after, "commitLogMaxOffset")).isGreaterThan(figure(before, "commitLogMaxOffset"));
            assertThat(lastTenSeconds(after, "putTps")).isPositive();
            assertThat(lastTenSeconds(after, "getTransferredTps")).isPositive();
        });
        final KVTable after = admin.fetchBrokerRuntimeStats(brokerAddr());
        assertThat(figure(after, "commitLogMinOffset")).isBetween(0L, figure(after, "commitLogMaxOffset"));
        assertThat(figure(after, "earliestMessageTimeStamp")).isBetween(figure(after, "bootTimestamp") - 1,
                System.currentTimeMillis());
        assertThat(figure(after, "msgPutTotalTodayMorning")).isBetween(0L, figure(after, "msgPutTotalTodayNow"));
    }

    @Test
    void shouldKeepKeyValueConfigsPerNamespaceAcrossARestart() throws Exception {
        try (RunningBroker own = RunningBroker.start()) {
            final DefaultMQAdminExt kv = RocketMqAdmin.started(own.nameServer());
            try {
                kv.createAndUpdateKvConfig("ORDER_TOPIC_CONFIG", "orders", "junction:8");
                kv.createAndUpdateKvConfig("ORDER_TOPIC_CONFIG", "payments", "junction:4");
                kv.createAndUpdateKvConfig("OTHER", "orders", "elsewhere");
                kv.createAndUpdateKvConfig("ORDER_TOPIC_CONFIG", "orders", "junction:16");
                assertThat(kv.getKVConfig("ORDER_TOPIC_CONFIG", "orders")).isEqualTo("junction:16");
                kv.deleteKvConfig("OTHER", "orders");
                assertThatThrownBy(() -> kv.getKVConfig("OTHER", "orders"))
                        .isInstanceOf(MQClientException.class).hasMessageContaining("No config item");

                own.restart();

                assertThat(kv.getKVConfig("ORDER_TOPIC_CONFIG", "orders")).isEqualTo("junction:16");
                assertThat(kv.getKVListByNamespace("ORDER_TOPIC_CONFIG").getTable())
                        .isEqualTo(Map.of("orders", "junction:16", "payments", "junction:4"));
                assertThatThrownBy(() -> kv.getKVConfig("OTHER", "orders"))
                        .isInstanceOf(MQClientException.class).hasMessageContaining("No config item");
                assertThatThrownBy(() -> kv.getKVListByNamespace("OTHER"))
                        .isInstanceOf(MQClientException.class).hasMessageContaining("No config item");
            } finally {
                kv.shutdown();
            }
        }
    }

    @Test
    void shouldReportConsumeStatsOfAGroupWhoseConsumersAllLeft() throws Exception {
        final String orders = Names.unique("orders");
        final String payments = Names.unique("payments");
        producer.createTopic("TBW102", orders, 2, Map.of());
        producer.createTopic("TBW102", payments, 1, Map.of());
        for (int i = 0; i < 6; i++) {
            producer.send(new Message(orders, ("o" + i).getBytes(StandardCharsets.UTF_8)),
                    (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), i);
        }
        for (int i = 0; i < 4; i++) {
            producer.send(new Message(payments, ("p" + i).getBytes(StandardCharsets.UTF_8)));
        }
        final String group = Names.unique("gone");
        final AtomicInteger consumed = new AtomicInteger();
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(orders, "*");
        consumer.subscribe(payments, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            consumed.addAndGet(msgs.size());
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            await().atMost(DEADLINE).until(() -> consumed.get() >= 10);
        } finally {
            consumer.shutdown(); // persists the offsets and unregisters: no consumer of the group is left
        }
        final long consumedBy = System.currentTimeMillis();
        assertThatThrownBy(() -> admin.examineConsumerConnectionInfo(group)).hasMessageContaining("not online");

        final ConsumeStats all = admin.examineConsumeStats(group);
        assertThat(all.getOffsetTable().keySet()).filteredOn(q -> q.getTopic().equals(orders))
                .extracting(MessageQueue::getQueueId).containsExactlyInAnyOrder(0, 1);
        assertThat(all.getOffsetTable().keySet()).filteredOn(q -> q.getTopic().equals(payments))
                .extracting(MessageQueue::getQueueId).containsExactly(0);
        assertThat(all.computeTotalDiff()).isZero();
        assertThat(sumOfConsumerOffsets(all, orders)).isEqualTo(6);
        assertThat(sumOfConsumerOffsets(all, payments)).isEqualTo(4);
        assertThat(all.getOffsetTable().entrySet()).filteredOn(e -> e.getKey().getTopic().equals(orders))
                .allSatisfy(e -> {
                    assertThat(e.getValue().getBrokerOffset()).isEqualTo(3);
                    assertThat(e.getValue().getLastTimestamp()).isBetween(consumedBy - DEADLINE.toMillis(),
                            consumedBy);
                });

        // messages sent after the consumers left are the lag
        for (int i = 0; i < 3; i++) {
            producer.send(new Message(payments, ("late" + i).getBytes(StandardCharsets.UTF_8)));
        }
        await().atMost(DEADLINE).untilAsserted(() ->
                assertThat(admin.examineConsumeStats(group).computeTotalDiff()).isEqualTo(3));
        final ConsumeStats onlyPayments = admin.examineConsumeStats(group, payments);
        assertThat(onlyPayments.getOffsetTable().keySet()).extracting(MessageQueue::getTopic)
                .containsOnly(payments);
        assertThat(onlyPayments.computeTotalDiff()).isEqualTo(3);
        // the 10 messages handed out show in the group's consume rate over the last minute (sampled every 10 s)
        await().atMost(DEADLINE).untilAsserted(() ->
                assertThat(admin.examineConsumeStats(group).getConsumeTps()).isPositive());
    }

    private static long sumOfConsumerOffsets(final ConsumeStats stats, final String topic) {
        return stats.getOffsetTable().entrySet().stream().filter(e -> e.getKey().getTopic().equals(topic))
                .mapToLong(e -> e.getValue().getConsumerOffset()).sum();
    }

    @Test
    void shouldCreateListRouteAndDeleteATopicWithAttributes() throws Exception {
        final String topic = Names.unique("admin-topic");
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
        final String topic = Names.unique("stats");
        producer.createTopic("TBW102", topic, 2, Map.of());
        for (int i = 0; i < 6; i++) {
            producer.send(new Message(topic, ("s" + i).getBytes(StandardCharsets.UTF_8)),
                    (mqs, msg, arg) -> mqs.get(0), null);
        }
        // Queue offsets come from the consume queues, which the dispatcher builds just after the append (as in
        // RocketMQ): on a loaded machine the stats may trail the acknowledgement by a moment.
        await().atMost(DEADLINE).untilAsserted(() -> assertThat(admin.examineTopicStats(topic).getOffsetTable()
                .values()).anySatisfy(o -> assertThat(o.getMaxOffset()).isEqualTo(6)));

        final String group = Names.unique("statsg");
        final AtomicInteger consumed = new AtomicInteger();
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
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
        final String topic = Names.unique("find");
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
