package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.MqAdminCommand;
import io.junction.conformance.support.RemotingClientShutdown;
import io.junction.conformance.support.RocketMqAdmin;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.remoting.protocol.admin.OffsetWrapper;
import org.apache.rocketmq.remoting.protocol.admin.TopicOffset;
import org.apache.rocketmq.remoting.protocol.admin.TopicStatsTable;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;
import org.apache.rocketmq.remoting.protocol.statictopic.LogicQueueMappingItem;
import org.apache.rocketmq.remoting.protocol.statictopic.TopicConfigAndQueueMapping;
import org.apache.rocketmq.remoting.protocol.statictopic.TopicQueueMappingDetail;
import org.apache.rocketmq.remoting.protocol.statictopic.TopicQueueMappingInfo;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.apache.rocketmq.tools.command.SubCommandException;
import org.apache.rocketmq.tools.command.topic.RemappingStaticTopicSubCommand;
import org.apache.rocketmq.tools.command.topic.UpdateStaticTopicSubCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * RocketMQ 5 static topics driven by the real {@code mqadmin updateStaticTopic} / {@code remappingStaticTopic}
 * commands (the 5.3.3 tools' sub-commands, run in process as {@code mqadmin} runs them) against the broker jar, then
 * used by the real 5.3.3 producer, lite pull consumer and orderly push consumer, which address the topic's queues as
 * logic queues of the mock broker {@code __syslo__global__} through the route's {@code topicQueueMappingByBroker};
 * {@code topicRoute}, {@code topicStatus} and {@code consumerProgress} (the admin API under them) show the mapping.
 */
@WithBroker
class RemotingStaticTopicIT {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final String CLUSTER = "JunctionCluster";
    private static final String BROKER = "junction";
    private static final String LOGIC_BROKER = "__syslo__global__";
    private static RunningBroker broker;
    private static DefaultMQProducer producer;
    private static DefaultMQAdminExt admin;

    @BeforeAll
    static void broker(final RunningBroker running) throws Exception {
        broker = running;
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

    private static void updateStaticTopic(final String topic, final int queues) throws Exception {
        MqAdminCommand.run(broker.nameServer(), new UpdateStaticTopicSubCommand(), "-t", topic, "-qn",
                Integer.toString(queues), "-c", CLUSTER);
    }

    private static TopicQueueMappingDetail mappingOf(final String topic) throws Exception {
        final TopicConfigAndQueueMapping config =
                (TopicConfigAndQueueMapping) admin.examineTopicConfig(broker.nameServer(), topic);
        assertThat(config.getMappingDetail()).as("mapping of " + topic).isNotNull();
        return config.getMappingDetail();
    }

    /** Sends {@code count} messages, message i to logic queue i modulo the count; the results by queue. */
    private static Map<Integer, List<SendResult>> send(final String topic, final int from, final int count,
                                                       final Set<String> brokerNamesSeen) throws Exception {
        final Map<Integer, List<SendResult>> sent = new TreeMap<>();
        for (int i = from; i < from + count; i++) {
            final SendResult r = producer.send(new Message(topic, "S", ("m" + i).getBytes(StandardCharsets.UTF_8)),
                    (mqs, msg, arg) -> {
                        mqs.forEach(q -> brokerNamesSeen.add(q.getBrokerName()));
                        return mqs.get((Integer) arg % mqs.size());
                    }, i);
            sent.computeIfAbsent(r.getMessageQueue().getQueueId(), q -> new ArrayList<>()).add(r);
        }
        return sent;
    }

    /**
     * Reads {@code count} messages of every logic queue from its start with a lite pull consumer of a new group, which
     * starts there by its consume-from-where (see {@link Clients#drain} for why not by a seek per queue).
     */
    private static List<MessageExt> readAll(final String topic, final int count,
                                            final Collection<MessageQueue> queuesSeen) throws Exception {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer(Names.unique("static-pull"));
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.start();
        try {
            final Collection<MessageQueue> queues = await().atMost(DEADLINE).ignoreException(MQClientException.class)
                    .until(() -> consumer.fetchMessageQueues(topic), q -> !q.isEmpty());
            queuesSeen.addAll(queues);
            consumer.assign(queues);
            final List<MessageExt> out = new ArrayList<>();
            final long end = System.nanoTime() + DEADLINE.toNanos();
            while (out.size() < count && System.nanoTime() < end) {
                out.addAll(consumer.poll(500));
            }
            return out;
        } finally {
            // A group of its own that nothing reads again: the test need not wait for the client's idle last step.
            RemotingClientShutdown.inBackground(consumer::shutdown);
        }
    }

    private static Map<Integer, List<String>> bodiesByQueue(final Collection<MessageExt> messages) {
        final Map<Integer, List<String>> out = new TreeMap<>();
        for (MessageExt m : messages) {
            out.computeIfAbsent(m.getQueueId(), q -> new ArrayList<>())
                    .add(new String(m.getBody(), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static Map<Integer, List<Long>> offsetsByQueue(final Collection<MessageExt> messages) {
        final Map<Integer, List<Long>> out = new TreeMap<>();
        for (MessageExt m : messages) {
            out.computeIfAbsent(m.getQueueId(), q -> new ArrayList<>()).add(m.getQueueOffset());
        }
        return out;
    }

    private static List<Long> range(final long from, final long to) {
        final List<Long> out = new ArrayList<>();
        for (long i = from; i < to; i++) {
            out.add(i);
        }
        return out;
    }

    private static Map<Integer, List<String>> sentBodies(final Map<Integer, List<SendResult>> sent,
                                                         final int from, final int count, final int queues) {
        final Map<Integer, List<String>> out = new TreeMap<>();
        for (int i = from; i < from + count; i++) {
            out.computeIfAbsent(i % queues, q -> new ArrayList<>()).add("m" + i);
        }
        assertThat(sent.keySet()).isEqualTo(out.keySet());
        return out;
    }

    @Test
    void shouldCreateAStaticTopicWithMqadminAndServeItsLogicQueuesToRealClients() throws Exception {
        final String topic = Names.unique("static");
        updateStaticTopic(topic, 4);

        // What the tool reads back (GET_TOPIC_CONFIG with lo): four logic queues, each this broker's queue of the
        // same number from logical offset 0.
        final TopicQueueMappingDetail detail = mappingOf(topic);
        assertThat(detail.getBname()).isEqualTo(BROKER);
        assertThat(detail.getTotalQueues()).isEqualTo(4);
        assertThat(detail.getScope()).isEqualTo(MixAll.METADATA_SCOPE_GLOBAL);
        assertThat(detail.getHostedQueues()).containsOnlyKeys(0, 1, 2, 3);
        detail.getHostedQueues().forEach((q, items) -> {
            assertThat(items).hasSize(1);
            final LogicQueueMappingItem item = items.get(0);
            assertThat(item.getBname()).isEqualTo(BROKER);
            assertThat(item.getQueueId()).isEqualTo(q);
            assertThat(item.getLogicOffset()).isZero();
            assertThat(item.getEndOffset()).isEqualTo(-1);
        });

        // topicRoute: the route carries this broker's mapping info.
        final TopicRouteData route = admin.examineTopicRouteInfo(topic);
        final TopicQueueMappingInfo info = route.getTopicQueueMappingByBroker().get(BROKER);
        assertThat(info.getTotalQueues()).isEqualTo(4);
        assertThat(info.getEpoch()).isEqualTo(detail.getEpoch());
        assertThat(info.getCurrIdMap()).isEqualTo(Map.of(0, 0, 1, 1, 2, 2, 3, 3));

        // An orderly push consumer started before the sends (locks and pulls name the logic queues).
        final Map<Integer, List<String>> pushed = new ConcurrentHashMap<>();
        final Set<String> pushedBrokerNames = ConcurrentHashMap.newKeySet();
        final String group = Names.unique("static-push");
        final DefaultMQPushConsumer push = new DefaultMQPushConsumer(group);
        push.setNamesrvAddr(broker.nameServer());
        push.setInstanceName(Names.unique("c"));
        push.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        push.subscribe(topic, "*");
        push.registerMessageListener((MessageListenerOrderly) (msgs, ctx) -> {
            pushedBrokerNames.add(ctx.getMessageQueue().getBrokerName());
            for (MessageExt m : msgs) {
                pushed.computeIfAbsent(m.getQueueId(), q -> new CopyOnWriteArrayList<>())
                        .add(new String(m.getBody(), StandardCharsets.UTF_8));
            }
            return ConsumeOrderlyStatus.SUCCESS;
        });
        push.start();
        try {
            final Set<String> producerBrokerNames = ConcurrentHashMap.newKeySet();
            final Map<Integer, List<SendResult>> sent = send(topic, 0, 40, producerBrokerNames);
            assertThat(producerBrokerNames).containsExactly(LOGIC_BROKER);
            for (Map.Entry<Integer, List<SendResult>> e : sent.entrySet()) {
                assertThat(e.getValue().stream().map(SendResult::getQueueOffset).toList())
                        .as("logic offsets of queue " + e.getKey()).isEqualTo(range(0, 10));
            }
            final Map<Integer, List<String>> expected = sentBodies(sent, 0, 40, 4);

            final List<MessageQueue> pulledQueues = new ArrayList<>();
            final List<MessageExt> pulled = readAll(topic, 40, pulledQueues);
            assertThat(pulledQueues).extracting(MessageQueue::getBrokerName).containsOnly(LOGIC_BROKER);
            assertThat(pulledQueues).extracting(MessageQueue::getQueueId).containsExactlyInAnyOrder(0, 1, 2, 3);
            assertThat(pulled).hasSize(40);
            assertThat(bodiesByQueue(pulled)).isEqualTo(expected);
            offsetsByQueue(pulled).values().forEach(o -> assertThat(o).isEqualTo(range(0, 10)));

            await().atMost(DEADLINE).until(() -> pushed.values().stream().mapToInt(List::size).sum() >= 40);
            assertThat(new TreeMap<>(pushed)).isEqualTo(expected);
            assertThat(pushedBrokerNames).containsOnly(LOGIC_BROKER);
        } finally {
            push.shutdown();
        }

        // consumerProgress: the group's committed offsets, per logic queue as the tool derives them.
        await().atMost(DEADLINE).untilAsserted(() -> {
            final ConsumeStats progress = admin.examineConsumeStats(group, topic);
            for (int q = 0; q < 4; q++) {
                final OffsetWrapper offsets = progress.getOffsetTable().get(new MessageQueue(topic, LOGIC_BROKER, q));
                assertThat(offsets).as("progress of logic queue " + q).isNotNull();
                assertThat(offsets.getBrokerOffset()).isEqualTo(10);
                assertThat(offsets.getConsumerOffset()).isEqualTo(10);
            }
        });

        // topicStatus: the physical queues, and the logic ones the tool derives from the mapping.
        final TopicStatsTable stats = admin.examineTopicStats(topic);
        for (int q = 0; q < 4; q++) {
            final TopicOffset logic = stats.getOffsetTable().get(new MessageQueue(topic, LOGIC_BROKER, q));
            final TopicOffset physical = stats.getOffsetTable().get(new MessageQueue(topic, BROKER, q));
            assertThat(logic).as("logic queue " + q).isNotNull();
            assertThat(logic.getMinOffset()).isZero();
            assertThat(logic.getMaxOffset()).isEqualTo(10);
            assertThat(physical.getMaxOffset()).isEqualTo(10);
        }
    }

    @Test
    void shouldRemapOntoItsOneBrokerWithANewEpochAndGrowWithOffsetsGoingOn() throws Exception {
        final String topic = Names.unique("remap");
        // By broker name this time (-b) rather than by cluster (-c): the same one broker.
        MqAdminCommand.run(broker.nameServer(), new UpdateStaticTopicSubCommand(), "-t", topic, "-qn", "2", "-b",
                BROKER);
        final long firstEpoch = mappingOf(topic).getEpoch();
        final Set<String> names = ConcurrentHashMap.newKeySet();
        final Map<Integer, List<SendResult>> before = send(topic, 0, 10, names);

        // The cluster is one broker, so nothing moves: the tool writes the same mapping under a newer epoch.
        MqAdminCommand.run(broker.nameServer(), new RemappingStaticTopicSubCommand(), "-t", topic, "-c", CLUSTER);
        final TopicQueueMappingDetail remapped = mappingOf(topic);
        assertThat(remapped.getEpoch()).isGreaterThan(firstEpoch);
        assertThat(remapped.getHostedQueues()).containsOnlyKeys(0, 1);
        await().atMost(DEADLINE).until(() -> admin.examineTopicRouteInfo(topic).getTopicQueueMappingByBroker()
                .get(BROKER).getEpoch() == remapped.getEpoch());
        final Map<Integer, List<SendResult>> after = send(topic, 10, 10, names);

        // Growing to three logic queues keeps the two (and their offsets) and adds one.
        updateStaticTopic(topic, 3);
        final TopicQueueMappingDetail grown = mappingOf(topic);
        assertThat(grown.getTotalQueues()).isEqualTo(3);
        assertThat(grown.getEpoch()).isGreaterThan(remapped.getEpoch());
        // A producer started now (the shared one refreshes its route only every 30 s) sees the third queue.
        final DefaultMQProducer fresh = Clients.producer(broker);
        final SendResult third;
        try {
            third = fresh.send(new Message(topic, "S", "third".getBytes(StandardCharsets.UTF_8)),
                    (mqs, msg, arg) -> mqs.stream().filter(q -> q.getQueueId() == 2).findFirst().orElseThrow(),
                    null);
        } finally {
            fresh.shutdown();
        }
        assertThat(third.getMessageQueue().getQueueId()).isEqualTo(2);
        assertThat(third.getQueueOffset()).isZero();

        for (int q = 0; q < 2; q++) {
            final List<Long> offsets = new ArrayList<>();
            before.get(q).forEach(r -> offsets.add(r.getQueueOffset()));
            after.get(q).forEach(r -> offsets.add(r.getQueueOffset()));
            assertThat(offsets).as("acknowledged offsets of logic queue " + q).isEqualTo(range(0, 10));
        }
        final List<MessageExt> read = readAll(topic, 21, new ArrayList<>());
        assertThat(read).hasSize(21);
        final Map<Integer, List<String>> expected = sentBodies(before, 0, 20, 2);
        expected.put(2, List.of("third"));
        assertThat(bodiesByQueue(read)).isEqualTo(expected);
        assertThat(offsetsByQueue(read)).isEqualTo(Map.of(0, range(0, 10), 1, range(0, 10), 2, List.of(0L)));
    }

    @Test
    void shouldRefuseAMappingThatMovesALogicQueueAndLeaveOrdinaryTopicsAlone() throws Exception {
        final String topic = Names.unique("moved");
        updateStaticTopic(topic, 1);
        final TopicQueueMappingDetail detail = mappingOf(topic);
        // What remapping onto a second broker would write here: the first generation sealed at 5, a second one
        // starting at logical offset 5 in physical queue 1.
        final List<LogicQueueMappingItem> chain = List.of(
                new LogicQueueMappingItem(0, 0, BROKER, 0, 0, 5, -1, -1),
                new LogicQueueMappingItem(1, 1, BROKER, 5, 0, -1, -1, -1));
        final TopicQueueMappingDetail moved = new TopicQueueMappingDetail(topic, 1, BROKER, detail.getEpoch() + 1000);
        TopicQueueMappingDetail.putMappingInfo(moved, 0, new ArrayList<>(chain));
        final TopicConfig config = new TopicConfig(topic, 2, 2);
        assertThatThrownBy(() -> admin.createStaticTopic(broker.nameServer(), admin.getCreateTopicKey(), config,
                moved, false))
                .isInstanceOfSatisfying(MQBrokerException.class, e -> {
                    assertThat(e.getResponseCode()).isEqualTo(1);
                    assertThat(e.getErrorMessage()).contains("logic queue 0").contains("/admin/topics/" + topic
                            + "/scale");
                });
        assertThat(mappingOf(topic).getEpoch()).isEqualTo(detail.getEpoch());

        // An ordinary topic has no mapping: the tool itself refuses to turn it into a static one.
        final String plain = Names.unique("plain");
        producer.send(new Message(plain, "x".getBytes(StandardCharsets.UTF_8)));
        assertThat(((TopicConfigAndQueueMapping) admin.examineTopicConfig(broker.nameServer(), plain))
                .getMappingDetail()).isNull();
        final TopicRouteData plainRoute = admin.examineTopicRouteInfo(plain);
        assertThat(plainRoute.getTopicQueueMappingByBroker()).isNullOrEmpty();
        assertThatThrownBy(() -> updateStaticTopic(plain, 16)).isInstanceOf(SubCommandException.class)
                .hasStackTraceContaining("Mapping info should not be null");
        final TopicRouteData unchanged = admin.examineTopicRouteInfo(plain);
        assertThat(unchanged.getTopicQueueMappingByBroker()).isNullOrEmpty();
        assertThat(unchanged.getQueueDatas().get(0).getReadQueueNums())
                .isEqualTo(plainRoute.getQueueDatas().get(0).getReadQueueNums());
    }

    @Test
    void shouldForgetTheMappingOfAStaticTopicDeletedThroughTheAdminApi() throws Exception {
        final String topic = Names.unique("deleted");
        updateStaticTopic(topic, 2);
        assertThat(mappingOf(topic).getTotalQueues()).isEqualTo(2);

        // Deleted through the HTTP admin API, not Remoting's DELETE_TOPIC.
        final HttpResponse<String> deleted = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(broker.httpBase() + "/admin/topics/" + topic)).timeout(Duration.ofSeconds(20)).DELETE()
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(deleted.statusCode()).as(deleted.body()).isBetween(200, 299);

        // Made again under the name: an ordinary topic, no mapping in its config or route.
        admin.createAndUpdateTopicConfig(broker.nameServer(), new TopicConfig(topic, 4, 4));
        final TopicRouteData route = await().atMost(DEADLINE).ignoreExceptions()
                .until(() -> admin.examineTopicRouteInfo(topic), r -> r != null);
        assertThat(route.getTopicQueueMappingByBroker()).isNullOrEmpty();
        assertThat(route.getQueueDatas().get(0).getReadQueueNums()).isEqualTo(4);
        assertThat(((TopicConfigAndQueueMapping) admin.examineTopicConfig(broker.nameServer(), topic))
                .getMappingDetail()).isNull();
    }

    @Test
    void shouldServeAPopConsumerOfAStaticTopic() throws Exception {
        final String topic = Names.unique("static-pop");
        updateStaticTopic(topic, 2);
        final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(Names.unique("static-popg"));
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.setClientRebalance(false); // POP: the broker assigns, the client pops and acks
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> deliveries.computeIfAbsent(new String(m.getBody(), StandardCharsets.UTF_8),
                    b -> new AtomicInteger()).incrementAndGet());
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        try {
            send(topic, 0, 20, ConcurrentHashMap.newKeySet());
            await().atMost(DEADLINE).until(() -> deliveries.size() >= 20);
            // Each acknowledged: none delivered twice within a quiet window.
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                    assertThat(deliveries.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1)));
            assertThat(deliveries.keySet()).containsExactlyInAnyOrderElementsOf(
                    IntStream.range(0, 20).mapToObj(i -> "m" + i).toList());
        } finally {
            consumer.shutdown();
        }
    }
}
