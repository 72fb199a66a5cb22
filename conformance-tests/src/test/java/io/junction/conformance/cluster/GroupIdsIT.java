package io.junction.conformance.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.ClusterLaunch;
import io.junction.conformance.support.ClusterProcesses;
import io.junction.conformance.support.RocketMqAdmin;
import io.junction.conformance.support.RunningBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What two store groups number alike, through a proxy over both (one {@code store} replica each), with RocketMQ's
 * Remoting client 5.3.3 on topics whose two queues lie one on each group: a POP push consumer (client rebalance off,
 * which names a popped message by queue id and offset) fails one message of each group once and acks both
 * redeliveries while both are in flight (each held up to 4 s for the other) (each group's retry queue starts at queue 0, offset 0); an offset push
 * consumer fails one message of each group once (its send-back names the message by commit-log offset, per group);
 * each failed message comes again exactly once, nothing else does, and every message is found by the log offset of its
 * offset id and the one its consumer saw (VIEW_MESSAGE_BY_ID through the proxy), by its unique id and its key.
 */
@Tag("cluster")
class GroupIdsIT {
    private static final String POP_TOPIC = "ids-pop";
    private static final String PULL_TOPIC = "ids-pull";
    private static final Duration WAIT = Duration.ofSeconds(60);
    /**
     * The POP consumer's invisible time: a redelivery not acked comes again after it (the test then watches for it
     * this long and 5 s more, so no longer than the hold below needs).
     */
    private static final long POP_INVISIBLE_MS = 10_000;
    /**
     * How long a redelivery waits for the other group's (so both are in flight together), well within the invisible
     * time: a message held past it would come again by right. Both come back after the client's first retry delay
     * (10 s) from failures a moment apart, so the wait is short.
     */
    private static final long HOLD_MS = 4_000;
    private static final int CLIENT_TIMEOUT_MS = ClusterProcesses.CLIENT_TIMEOUT_MS;

    @RegisterExtension
    final ClusterProcesses cluster = new ClusterProcesses();
    private final List<RunningBroker> stores = cluster.stores();
    private final List<RunningBroker> proxies = cluster.proxies();
    private final List<AutoCloseable> clients = cluster.clients();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void shouldTellTwoGroupsMessagesApartWhereTheyNumberAlike() throws Exception {
        ClusterLaunch.storeGroupsAndProxies(2, 1, "-Xmx160m", 1, stores, proxies);
        final RunningBroker proxy = proxies.get(0);
        createTopic(proxy, POP_TOPIC);
        createTopic(proxy, PULL_TOPIC);
        assertThat(proxy.get("/cluster").body()).contains("\"" + POP_TOPIC + "\":\"g1;g2\"",
                "\"" + PULL_TOPIC + "\":\"g1;g2\"");

        final DefaultMQProducer producer = cluster.remotingProducer(proxy, "ids-producer");

        // Equal-sized messages, queue 0 (g1) and 1 (g2) in turn: the two groups' logs hold them at like offsets.
        final List<SendResult> sent = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            sent.add(send(producer, PULL_TOPIC, i % 2, "pull-" + i));
        }
        send(producer, POP_TOPIC, 0, "pop-0");
        send(producer, POP_TOPIC, 1, "pop-1");

        // POP: each message fails once; both redeliveries are held until both arrived (in flight together).
        final Map<String, AtomicInteger> popDeliveries = new ConcurrentHashMap<>();
        final CountDownLatch bothRedelivered = new CountDownLatch(2);
        final DefaultMQPushConsumer pop = new DefaultMQPushConsumer("ids-pop-group");
        pop.setNamesrvAddr(proxy.nameServer());
        pop.setInstanceName("ids-pop-" + System.nanoTime());
        pop.setClientRebalance(false);
        pop.setPopInvisibleTime(POP_INVISIBLE_MS);
        pop.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        pop.subscribe(POP_TOPIC, "*");
        pop.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                popDeliveries.computeIfAbsent(text(m), b -> new AtomicInteger()).incrementAndGet();
                if (m.getReconsumeTimes() == 0) {
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                }
                bothRedelivered.countDown();
                try {
                    bothRedelivered.await(HOLD_MS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });

        // Offsets: pull-1 (g2) and pull-2 (g1) fail once and are sent back by their log offsets.
        final Map<String, AtomicInteger> pullDeliveries = new ConcurrentHashMap<>();
        final Map<String, Long> consumedAt = new ConcurrentHashMap<>();
        final DefaultMQPushConsumer pull = new DefaultMQPushConsumer("ids-pull-group");
        pull.setNamesrvAddr(proxy.nameServer());
        pull.setInstanceName("ids-pull-" + System.nanoTime());
        pull.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        pull.subscribe(PULL_TOPIC, "*");
        pull.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                pullDeliveries.computeIfAbsent(text(m), b -> new AtomicInteger()).incrementAndGet();
                if (m.getReconsumeTimes() == 0) {
                    consumedAt.put(text(m), m.getCommitLogOffset());
                }
                if (m.getReconsumeTimes() == 0 && (text(m).equals("pull-1") || text(m).equals("pull-2"))) {
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        pop.start();
        clients.add(pop::shutdown);
        pull.start();
        clients.add(pull::shutdown);

        final Map<String, Integer> popExpected = Map.of("pop-0", 2, "pop-1", 2);
        final Map<String, Integer> pullExpected = Map.of("pull-0", 1, "pull-1", 2, "pull-2", 2, "pull-3", 1);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(counts(popDeliveries)).as("POP deliveries").isEqualTo(popExpected);
            assertThat(counts(pullDeliveries)).as("offset consumer deliveries").isEqualTo(pullExpected);
        });
        // A redelivery acked under the other group's receipt would come again after the invisible time.
        await("nothing delivered again").during(Duration.ofMillis(POP_INVISIBLE_MS + 5_000))
                .atMost(Duration.ofMillis(POP_INVISIBLE_MS * 2 + 5_000)).untilAsserted(() -> {
                    assertThat(counts(popDeliveries)).isEqualTo(popExpected);
                    assertThat(counts(pullDeliveries)).isEqualTo(pullExpected);
                });

        // Every message by its offset id, its unique id and its key.
        final DefaultMQAdminExt admin = RocketMqAdmin.started(proxy.nameServer());
        clients.add(admin::shutdown);
        final MQClientAPIImpl api = admin.getDefaultMQAdminExtImpl().getMqClientInstance().getMQClientAPIImpl();
        for (int i = 0; i < sent.size(); i++) {
            final SendResult r = sent.get(i);
            final String body = "pull-" + i;
            // The offset id names the store node's address (no Remoting listener there): the proxy is asked as
            // viewMessage asks the broker an offset id names, with the id's log offset; and with a consumer's.
            final long offset = MessageDecoder.decodeMessageId(r.getOffsetMsgId()).getOffset();
            assertThat(text(api.viewMessage(proxy.nameServer(), PULL_TOPIC, offset, CLIENT_TIMEOUT_MS)))
                    .as("%s by its offset id's log offset", body).isEqualTo(body);
            assertThat(text(api.viewMessage(proxy.nameServer(), PULL_TOPIC, consumedAt.get(body),
                    CLIENT_TIMEOUT_MS))).as("%s by the log offset its consumer saw", body).isEqualTo(body);
            assertThat(text(admin.viewMessage(PULL_TOPIC, r.getMsgId()))).as("%s by unique id", body)
                    .isEqualTo(body);
            assertThat(admin.queryMessage(PULL_TOPIC, "key-" + body, 8, 0, Long.MAX_VALUE).getMessageList())
                    .extracting(GroupIdsIT::text).as("%s by key", body).containsExactly(body);
        }
    }

    private static SendResult send(final DefaultMQProducer producer, final String topic, final int queue,
                                   final String body) throws Exception {
        final Message message = new Message(topic, "T", "key-" + body, body.getBytes(StandardCharsets.UTF_8));
        final SendResult r = producer.send(message, (mqs, msg, arg) -> mqs.stream()
                .filter(q -> q.getQueueId() == queue).findFirst().orElseThrow(), null);
        assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
        return r;
    }

    private static Map<String, Integer> counts(final Map<String, AtomicInteger> deliveries) {
        final Map<String, Integer> counts = new TreeMap<>();
        deliveries.forEach((body, n) -> counts.put(body, n.get()));
        return counts;
    }

    private static String text(final MessageExt m) {
        return new String(m.getBody(), StandardCharsets.UTF_8);
    }

    private void createTopic(final RunningBroker proxy, final String topic) throws Exception {
        final HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase()
                        + "/admin/topics")).timeout(Duration.ofSeconds(20)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"" + topic + "\",\"queues\":2}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    }
}
