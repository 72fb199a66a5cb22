package io.junction.conformance.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.ClusterLaunch;
import io.junction.conformance.support.RunningBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Growing and shrinking a topic across store groups mid-load, through the proxy's admin endpoints: two store groups
 * (one {@code store} replica each) and a proxy configured with the first only; a RocketMQ Remoting producer sends
 * continuously to queue 0 of a 2-queue topic and an MQTT 5 QoS 1 publisher to the same topic, while a Remoting lite
 * pull consumer reads both queues from offset 0. Mid-load {@code POST /admin/cluster/groups} adds the second group,
 * {@code POST /admin/topics/elastic/scale?queues=2&groups=g2} moves both queues' writes onto it (g1's queues sealed,
 * new segments opened on g2), a Remoting message delayed 5 s, sent to queue 1 just before, falls due after that seal,
 * then {@code scale?queues=1&groups=g2} scales in (queue 1 closed: sealed, read only). Afterwards every acknowledged
 * message was read once (the delayed one too), queue 0's Remoting messages in send order, each queue's offsets one
 * gapless sequence across the seams, and the consumer never went more than 5 s without a message while the producers
 * ran. Prints the write pause at the seam.
 */
@Tag("cluster")
class ElasticScalingIT {
    private static final String TOPIC = "elastic";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int CLIENT_TIMEOUT_MS = 15_000;
    private static final long STALL_LIMIT_MS = 5_000;
    /** Messages each producer sends before and after the scaling. */
    private static final int PHASE = 150;

    private final List<RunningBroker> stores = new ArrayList<>();
    private final List<RunningBroker> proxies = new ArrayList<>();
    private final List<AutoCloseable> clients = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** The contract port of the second store group, which the proxy is not configured with. */
    private String secondGroupContract;

    @AfterEach
    void stopAll() {
        for (int i = clients.size() - 1; i >= 0; i--) {
            try {
                clients.get(i).close();
            } catch (Exception e) {
                // closing a client at the end: nothing to tell it
            }
        }
        proxies.forEach(RunningBroker::close);
        stores.forEach(RunningBroker::close);
    }

    @Test
    void shouldAddAGroupScaleOntoItAndScaleInMidLoadWithNothingLostNothingTwiceAndNoGap() throws Exception {
        final RunningBroker proxy = startTwoGroupsAndAProxy();
        assertThat(post(proxy, "/admin/topics", "{\"name\":\"" + TOPIC + "\",\"queues\":2}").statusCode())
                .isEqualTo(201);
        assertThat(proxy.get("/cluster").body()).as("one group: nothing placed").doesNotContain("placements");

        final AtomicBoolean stop = new AtomicBoolean();
        final List<String> remotingAcked = new CopyOnWriteArrayList<>();
        final List<String> mqttAcked = new CopyOnWriteArrayList<>();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final AtomicLong longestSendMillis = new AtomicLong();
        /** Each Remoting send as {start, end} in nanoseconds: the ones spanning the scaling show the seam's pause. */
        final List<long[]> sendTimes = new CopyOnWriteArrayList<>();

        final DefaultMQProducer producer = new DefaultMQProducer("elastic-producer");
        producer.setNamesrvAddr(proxy.nameServer());
        producer.setInstanceName("elastic-" + System.nanoTime());
        producer.setSendMsgTimeout(CLIENT_TIMEOUT_MS);
        producer.setMqClientApiTimeout(CLIENT_TIMEOUT_MS);
        producer.start();
        clients.add(producer::shutdown);
        final Thread remoting = new Thread(() -> {
            for (int i = 0; !stop.get(); i++) {
                final String body = "remoting-" + i;
                final long began = System.nanoTime();
                try {
                    final SendResult r = producer.send(new Message(TOPIC, body.getBytes(StandardCharsets.UTF_8)),
                            (mqs, msg, arg) -> mqs.stream().filter(q -> q.getQueueId() == 0).findFirst()
                                    .orElseThrow(), null);
                    if (r.getSendStatus() == SendStatus.SEND_OK) {
                        remotingAcked.add(body);
                    }
                } catch (Exception e) {
                    failures.add(e); // not acknowledged: nothing is owed
                }
                final long ended = System.nanoTime();
                sendTimes.add(new long[] {began, ended});
                longestSendMillis.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(ended - began), Math::max);
            }
        }, "elastic-remoting");

        final Mqtt5BlockingClient publisher = MqttClient.builder().useMqttVersion5().identifier("elastic-pub")
                .serverHost("127.0.0.1").serverPort(proxy.mqttPort()).buildBlocking();
        publisher.connectWith().cleanStart(true).send();
        clients.add(publisher::disconnect);
        final Thread mqtt = new Thread(() -> {
            for (int i = 0; !stop.get(); i++) {
                final String body = "mqtt-" + i;
                try {
                    publisher.publishWith().topic(TOPIC + "/mqtt").qos(MqttQos.AT_LEAST_ONCE)
                            .payload(body.getBytes(StandardCharsets.UTF_8)).send();
                    mqttAcked.add(body);
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }
        }, "elastic-mqtt");

        // The offset consumer reads both queues from 0 while the producers run.
        final Map<Integer, List<MessageExt>> read = new HashMap<>();
        final AtomicLong longestStallMillis = new AtomicLong();
        final AtomicLong longestStallEnded = new AtomicLong();
        final AtomicBoolean readerDone = new AtomicBoolean();
        final List<Throwable> readerFailures = new CopyOnWriteArrayList<>();
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("elastic-reader");
        consumer.setNamesrvAddr(proxy.nameServer());
        consumer.setInstanceName("elastic-reader-" + System.nanoTime());
        consumer.setAutoCommit(false);
        consumer.setMqClientApiTimeout(CLIENT_TIMEOUT_MS);
        consumer.start();
        clients.add(consumer::shutdown);
        final List<MessageQueue> queues = new ArrayList<>(consumer.fetchMessageQueues(TOPIC));
        assertThat(queues).hasSize(2);
        consumer.assign(queues);
        for (MessageQueue mq : queues) {
            consumer.seek(mq, 0);
        }
        final Thread reader = new Thread(() -> {
            long last = -1;
            try {
                while (!readerDone.get()) {
                    final List<MessageExt> batch = consumer.poll(500);
                    final long now = System.nanoTime();
                    // A wait counts from the first message read (the client's start is not a stall) while producing.
                    if (last >= 0 && !stop.get()) {
                        final long waited = TimeUnit.NANOSECONDS.toMillis(now - last);
                        if (waited > longestStallMillis.get()) {
                            longestStallMillis.set(waited);
                            longestStallEnded.set(now);
                        }
                    }
                    if (!batch.isEmpty()) {
                        synchronized (read) {
                            batch.forEach(m -> read.computeIfAbsent(m.getQueueId(), q -> new ArrayList<>()).add(m));
                        }
                        last = now;
                    }
                }
            } catch (RuntimeException e) {
                readerFailures.add(e);
            }
        }, "elastic-reader");

        remoting.start();
        mqtt.start();
        reader.start();
        await().atMost(WAIT).until(() -> remotingAcked.size() >= PHASE && mqttAcked.size() >= PHASE);

        // The second store group joins the running proxy; the refusals are 4xx.
        final String g2 = "{\"name\":\"g2\",\"contracts\":\"" + secondGroupContract + "\"}";
        final HttpResponse<String> added = post(proxy, "/admin/cluster/groups", g2);
        assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
        assertThat(post(proxy, "/admin/cluster/groups", g2).statusCode()).as("a duplicate").isEqualTo(409);
        assertThat(proxy.get("/cluster").body()).contains("\"name\":\"g2\"", "\"added\":true");

        // A delayed message parked on g1 for queue 1, due after the seal below: carried to the queue's g2 segment.
        final Message delayed = new Message(TOPIC, "delayed-0".getBytes(StandardCharsets.UTF_8));
        delayed.setDelayTimeLevel(2);
        assertThat(producer.send(delayed, (mqs, msg, arg) -> mqs.stream().filter(q -> q.getQueueId() == 1)
                .findFirst().orElseThrow(), null).getSendStatus()).isEqualTo(SendStatus.SEND_OK);

        final long scaleBegan = System.nanoTime();
        final HttpResponse<String> scaled = post(proxy, "/admin/topics/" + TOPIC + "/scale?queues=2&groups=g2", "");
        final long scaleEnded = System.nanoTime();
        final long scaleMillis = TimeUnit.NANOSECONDS.toMillis(scaleEnded - scaleBegan);
        assertThat(scaled.statusCode()).as(scaled.body()).isEqualTo(200);
        assertThat(scaled.body()).contains("\"group\":\"g1\"", "\"group\":\"g2\"").containsPattern(
                "\"placement\":\"g1:0:0:0:[0-9]+,g2:0:[0-9]+:0:-;g1:1:0:0:[0-9]+,g2:1:[0-9]+:0:-\"");
        assertThat(delete(proxy, "/admin/cluster/groups/g2").statusCode()).as("g2 takes writes").isEqualTo(409);
        final int remotingAtScale = remotingAcked.size();
        final int mqttAtScale = mqttAcked.size();
        await().atMost(WAIT).until(() -> remotingAcked.size() >= remotingAtScale + PHASE
                && mqttAcked.size() >= mqttAtScale + PHASE);

        // Scaling in: queue 1 is closed (sealed on g2, read only); producers go on with queue 0.
        final HttpResponse<String> shrunk = post(proxy, "/admin/topics/" + TOPIC + "/scale?queues=1&groups=g2", "");
        assertThat(shrunk.statusCode()).as(shrunk.body()).isEqualTo(200);
        assertThat(shrunk.body()).containsPattern("\"placement\":\"g1:0:0:0:[0-9]+,g2:0:[0-9]+:0:-;"
                + "g1:1:0:0:[0-9]+,g2:1:[0-9]+:0:[0-9]+\"");
        assertThat(producer.fetchPublishMessageQueues(TOPIC)).as("the route's write queues")
                .extracting(MessageQueue::getQueueId).containsExactly(0);
        assertThat(consumer.fetchMessageQueues(TOPIC)).as("the route's read queues: the closed one too").hasSize(2);
        final int remotingAtShrink = remotingAcked.size();
        final int mqttAtShrink = mqttAcked.size();
        await().atMost(WAIT).until(() -> remotingAcked.size() >= remotingAtShrink + PHASE
                && mqttAcked.size() >= mqttAtShrink + PHASE);
        stop.set(true);
        remoting.join();
        mqtt.join();
        assertThat(proxy.get("/cluster").body()).containsPattern("\"" + TOPIC + "\":\"g1:0:0:0:[0-9]+,g2:0:");

        final int total = remotingAcked.size() + mqttAcked.size() + 1;
        await().atMost(WAIT).until(() -> {
            synchronized (read) {
                return read.values().stream().mapToInt(List::size).sum() >= total;
            }
        });
        readerDone.set(true);
        reader.join();
        assertThat(readerFailures).isEmpty();

        final long seamMillis = sendTimes.stream().filter(t -> t[1] >= scaleBegan && t[0] <= scaleEnded)
                .mapToLong(t -> TimeUnit.NANOSECONDS.toMillis(t[1] - t[0])).max().orElse(0);
        System.out.printf("ElasticScalingIT: %d Remoting + %d MQTT messages acknowledged (%d sends failed), scale "
                        + "answered in %d ms, longest Remoting send during the scaling (the write pause at the seam) "
                        + "%d ms, longest Remoting send overall %d ms, longest "
                        + "consumer wait while producing %d ms (ended %d ms after the scale request)%n",
                remotingAcked.size(), mqttAcked.size(), failures.size(), scaleMillis, seamMillis,
                longestSendMillis.get(), longestStallMillis.get(),
                TimeUnit.NANOSECONDS.toMillis(longestStallEnded.get() - scaleBegan));

        final List<String> readRemoting = new ArrayList<>();
        final Set<String> readMqtt = new HashSet<>();
        final List<String> duplicates = new ArrayList<>();
        final List<String> readDelayed = new ArrayList<>();
        for (Map.Entry<Integer, List<MessageExt>> queue : read.entrySet()) {
            final List<MessageExt> messages = queue.getValue();
            for (int i = 0; i < messages.size(); i++) {
                assertThat(messages.get(i).getQueueOffset()).as("queue %d: one gapless sequence", queue.getKey())
                        .isEqualTo(i);
                final String body = new String(messages.get(i).getBody(), StandardCharsets.UTF_8);
                if (body.startsWith("remoting-")) {
                    assertThat(queue.getKey()).isZero();
                    readRemoting.add(body);
                } else if (body.startsWith("delayed-")) {
                    readDelayed.add(body);
                } else if (!readMqtt.add(body)) {
                    duplicates.add(body);
                }
            }
        }
        assertThat(readRemoting).as("queue 0's Remoting messages: each acknowledged one once, in send order")
                .containsExactlyElementsOf(remotingAcked);
        assertThat(duplicates).isEmpty();
        assertThat(readDelayed).as("the delayed message, due after the seal, read once").containsExactly("delayed-0");
        assertThat(readMqtt).containsExactlyInAnyOrderElementsOf(mqttAcked);
        assertThat(longestStallMillis.get()).as("the consumer never waited long while producers ran")
                .isLessThan(STALL_LIMIT_MS);
    }

    private RunningBroker startTwoGroupsAndAProxy() {
        // The proxy knows g1 only: g2 is added through the endpoint mid-load.
        final List<String> contracts = ClusterLaunch.storeGroups(2, 1, "-Xmx160m", stores);
        secondGroupContract = contracts.get(1);
        ClusterLaunch.startTogether(List.of(ClusterLaunch.proxyOver(contracts.subList(0, 1))
                .set("kafka.enabled", "false").jvmArgs("-Xmx256m")), proxies);
        return proxies.get(0);
    }

    private HttpResponse<String> delete(final RunningBroker proxy, final String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase() + path))
                .timeout(Duration.ofSeconds(20)).DELETE().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(final RunningBroker proxy, final String path, final String json)
            throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase() + path))
                .timeout(Duration.ofSeconds(20)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
