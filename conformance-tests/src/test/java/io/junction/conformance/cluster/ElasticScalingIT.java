package io.junction.conformance.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.junction.conformance.support.ClusterLaunch;
import io.junction.conformance.support.ClusterProcesses;
import io.junction.conformance.support.RocketMqClientLogs;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Growing a topic onto new store groups, retiring one and losing a proxy, all under continuous load on every protocol
 * through two proxies. Three store groups run from the start; both proxies are configured with g1 (the metadata
 * group) only. Through proxy A {@code POST /admin/cluster/groups} adds g2, and a 2-queue topic is created (on g1).
 * Then the load runs on the one topic, producers and consumers spread over both proxies:
 * <ul>
 *   <li>RocketMQ Remoting: ordered sync sends to queue 0 through B and to queue 1 through A; a lite pull consumer
 *       on B reads both logical queues from offset 0 (the offset consumer);</li>
 *   <li>MQTT 5 QoS 1: a publisher on A, a subscriber on B;</li>
 *   <li>JMS (Qpid JMS over AMQP 1.0): a producer on A, a consumer on B;</li>
 *   <li>gRPC (rocketmq-client-java 5): a producer on A, a simple (POP) consumer on B;</li>
 *   <li>CloudEvents over HTTP: binary-mode POSTs on B, a pull subscription received and acked on A.</li>
 * </ul>
 * Mid-load, each step once every producer had more acknowledged: a Remoting message delayed 5 s is sent to queue 1,
 * {@code scale?groups=g2} through A moves both queues' writes onto g2 (the first seam; the delayed one falls due after
 * it); B adds g3 and {@code scale?groups=g3} moves them onto g3 (the second seam); A removes g2, which is retired (its
 * sealed segments still hold messages) and refused as a scaling target; then proxy A is SIGKILLed and the clients it
 * served connect to B, where the load goes on.
 *
 * <p>Afterwards: every acknowledged message of every protocol was received by its consumer, and nothing it received
 * was never sent; messages received more than once (at-least-once redelivery, e.g. events received on A but not
 * acked before it died) are counted and printed; the offset consumer read every acknowledged message of every
 * protocol and the delayed one, each exactly once, each queue's offsets one gapless sequence from 0 across both seams,
 * and each Remoting producer's acknowledged messages in its queue in send order; no consumer waited 5 s or more for
 * its stream's next message while the producers ran, except the one wait of a consumer whose proxy was killed, from
 * the kill until it read through the other proxy (printed, not bounded). Prints the write pause at each seam, and
 * from the kill to the first acknowledgement through B of each producer A served.
 *
 * <p>Two shapes: groups of one {@code store} replica (tag {@code cluster}, in CI), and the groups of three
 * replicas (tag {@code long} as well: not in the default verify; the README says how to run it).
 */
@Tag("cluster")
class ElasticScalingIT {
    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPIC = "elastic";
    private static final String SUBSCRIPTION = "elastic-events";
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int CLIENT_TIMEOUT_MS = ClusterProcesses.CLIENT_TIMEOUT_MS;
    private static final long STALL_LIMIT_MS = 5_000;
    /** Messages each producer has acknowledged more before the next step. */
    private static final int PHASE = 30;

    private final ClusterProcesses cluster = new ClusterProcesses();
    private final List<RunningBroker> stores = cluster.stores();
    private final List<RunningBroker> proxies = cluster.proxies();
    private final List<LoadStream> streams = new ArrayList<>();
    private final List<AutoCloseable> clients = cluster.clients();
    private final AtomicBoolean producing = new AtomicBoolean(true);
    private final AtomicBoolean consuming = new AtomicBoolean(true);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @AfterEach
    void stopAll() throws Exception {
        producing.set(false);
        consuming.set(false);
        for (LoadStream stream : streams) {
            stream.join();
        }
        cluster.close();
    }

    @Test
    void shouldScaleOutRetireAGroupAndLoseAProxyMidLoadWithNothingLostAndNoSeam() throws Exception {
        run(1, "-Xmx160m");
    }

    /** The shape: groups of three replicas (nine store processes and two proxies on this machine). */
    @Test
    @Tag("long")
    void shouldDoTheSameWithGroupsOfThreeReplicas() throws Exception {
        run(3, "-Xmx128m");
    }

    private void run(final int replicas, final String storeHeap) throws Exception {
        final long began = System.nanoTime();
        final List<String> contracts = ClusterLaunch.storeGroups(3, replicas, storeHeap, stores);
        final RunningBroker.Builder proxy = ClusterLaunch.proxyOver(contracts.subList(0, 1))
                .set("kafka.enabled", "false").jvmArgs("-Xmx256m");
        ClusterLaunch.startTogether(List.of(proxy, proxy), proxies);
        final RunningBroker a = proxies.get(0);
        final RunningBroker b = proxies.get(1);
        final long startedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);

        addGroup(a, b, "g2", contracts.get(1));
        assertThat(post(a, "/admin/topics", "{\"name\":\"" + TOPIC + "\",\"queues\":2}").statusCode())
                .isEqualTo(201);
        final ElasticClients load = new ElasticClients(TOPIC);
        load.createSubscription(b, SUBSCRIPTION, 5);

        final LoadStream remoting0 = new LoadStream("remoting0", b, load.remoting(0), b, null);
        final LoadStream remoting1 = new LoadStream("remoting1", a, load.remoting(1), a, null);
        streams.add(remoting0);
        streams.add(remoting1);
        streams.add(new LoadStream("mqtt", a, load.mqttPublisher(), b, load.mqttSubscriber()));
        streams.add(new LoadStream("jms", a, load.jmsProducer(), b, load.jmsConsumer()));
        streams.add(new LoadStream("grpc", a, load.grpcProducer(), b, load.grpcConsumer()));
        streams.add(new LoadStream("http", b, load.cloudEventsPoster(), a, load.cloudEventsPull(SUBSCRIPTION)));

        final OffsetReader reader = new OffsetReader(b);
        reader.start();
        for (LoadStream stream : streams) {
            stream.start(producing, consuming);
        }
        awaitEveryProducer(PHASE);

        // A message delayed 5 s, parked on g1 for queue 1, falls due after the first seal: carried to g2 or g3.
        final DefaultMQProducer delayer = remotingProducer(b);
        final Message delayed = new Message(TOPIC, "delayed-0".getBytes(StandardCharsets.UTF_8));
        delayed.setDelayTimeLevel(2);
        assertThat(delayer.send(delayed, (mqs, msg, arg) -> mqs.stream().filter(q -> q.getQueueId() == 1)
                .findFirst().orElseThrow(), null).getSendStatus()).isEqualTo(SendStatus.SEND_OK);

        // The first seam: both queues move from g1 onto g2, through A.
        final long seam1 = System.nanoTime();
        final HttpResponse<String> toG2 = post(a, "/admin/topics/" + TOPIC + "/scale?queues=2&groups=g2", "");
        final long seam1Ended = System.nanoTime();
        assertThat(toG2.statusCode()).as(toG2.body()).isEqualTo(200);
        assertThat(toG2.body()).containsPattern(
                "\"placement\":\"g1:0:0:0:[0-9]+,g2:0:[0-9]+:0:-;g1:1:0:0:[0-9]+,g2:1:[0-9]+:0:-\"");
        assertThat(delete(b, "/admin/cluster/groups/g2").statusCode()).as("g2 takes writes").isEqualTo(409);
        awaitEveryProducer(PHASE);

        // The third group joins through B; the second seam moves both queues from g2 onto g3, through B.
        addGroup(b, a, "g3", contracts.get(2));
        final long seam2 = System.nanoTime();
        final HttpResponse<String> toG3 = post(b, "/admin/topics/" + TOPIC + "/scale?queues=2&groups=g3", "");
        final long seam2Ended = System.nanoTime();
        assertThat(toG3.statusCode()).as(toG3.body()).isEqualTo(200);
        assertThat(toG3.body()).containsPattern("\"placement\":\"g1:0:0:0:[0-9]+,g2:0:[0-9]+:0:[0-9]+,"
                + "g3:0:[0-9]+:0:-;g1:1:0:0:[0-9]+,g2:1:[0-9]+:0:[0-9]+,g3:1:[0-9]+:0:-\"");
        awaitEveryProducer(PHASE);

        // g2 takes no writes any more but holds messages: removing it retires it, on both proxies.
        final HttpResponse<String> removed = delete(a, "/admin/cluster/groups/g2");
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
        assertThat(removed.body()).contains("\"retired\":\"g2\"", TOPIC);
        await("B sees g2 retired").atMost(WAIT).until(() -> retired(b, "g2"));
        assertThat(post(b, "/admin/topics/" + TOPIC + "/scale?queues=2&groups=g2", "").statusCode())
                .as("a retired group is no scaling target").isBetween(400, 499);
        awaitEveryProducer(PHASE);

        // Proxy A dies; its clients connect to B, where the load goes on.
        final long killed = System.nanoTime();
        a.kill();
        streams.forEach(s -> s.moveHome(a, b));
        final Map<LoadStream, Integer> atKill = new HashMap<>();
        streams.forEach(s -> atKill.put(s, s.acked().size()));
        await("every producer acknowledged through B after A's death").atMost(WAIT)
                .until(() -> streams.stream().allMatch(s -> s.acked().size() >= atKill.get(s) + PHASE));

        producing.set(false);
        final long stopped = System.nanoTime();
        await("every consumer received every acknowledged message").atMost(WAIT).until(() -> streams.stream()
                .filter(s -> s != remoting0 && s != remoting1)
                .allMatch(s -> new HashSet<>(s.received()).containsAll(s.acked())));
        final Set<String> everyAcked = streams.stream().flatMap(s -> s.acked().stream()).collect(Collectors.toSet());
        everyAcked.add("delayed-0");
        await("the offset consumer read every acknowledged message").atMost(WAIT)
                .until(() -> reader.bodies().containsAll(everyAcked));
        consuming.set(false);
        for (LoadStream stream : streams) {
            stream.join();
        }
        reader.stop();
        assertThat(reader.failures()).isEmpty();

        final long runMillis = TimeUnit.NANOSECONDS.toMillis(stopped - began);
        System.out.printf("ElasticScalingIT (%d replica(s) per group): 3 groups and 2 proxies healthy in %d ms, run "
                        + "%d ms; scale onto g2 answered in %d ms, onto g3 in %d ms; longest Remoting send spanning the "
                        + "first seam %d ms, the second %d ms; the offset consumer's longest wait %d ms%n",
                replicas, startedMillis, runMillis, TimeUnit.NANOSECONDS.toMillis(seam1Ended - seam1),
                TimeUnit.NANOSECONDS.toMillis(seam2Ended - seam2),
                Math.max(remoting0.longestSendSpanning(seam1, seam1Ended),
                        remoting1.longestSendSpanning(seam1, seam1Ended)),
                Math.max(remoting0.longestSendSpanning(seam2, seam2Ended),
                        remoting1.longestSendSpanning(seam2, seam2Ended)),
                reader.longestStallMillis());
        for (LoadStream s : streams) {
            System.out.printf("  %-9s %5d acknowledged, %d sends failed, kill to the first acknowledgement %d ms",
                    s.name(), s.acked().size(), s.failedSends(), s.firstAckAfter(killed));
            if (s == remoting0 || s == remoting1) {
                System.out.printf(" (read by the offset consumer)%n");
                continue;
            }
            System.out.printf("; %d received more than once (%d extra), longest consumer wait %d ms (ended %d ms after "
                            + "the first seam; the second came at %d, the kill at %d), its wait across A's death %d ms%n",
                    s.duplicates().size(), s.duplicates().values().stream().mapToInt(Integer::intValue).sum(),
                    s.longestStallMillis(), TimeUnit.NANOSECONDS.toMillis(s.longestStallEndedNanos() - seam1),
                    TimeUnit.NANOSECONDS.toMillis(seam2 - seam1), TimeUnit.NANOSECONDS.toMillis(killed - seam1),
                    s.movedWaitMillis());
        }

        for (LoadStream s : streams) {
            if (s == remoting0 || s == remoting1) {
                continue;
            }
            assertThat(new HashSet<>(s.received())).as("%s: every acknowledged message received", s.name())
                    .containsAll(s.acked());
            assertThat(s.attempted()).as("%s: nothing received that was not sent", s.name())
                    .containsAll(new HashSet<>(s.received()));
            assertThat(s.longestStallMillis()).as("%s: the consumer's longest wait while producing", s.name())
                    .isLessThan(STALL_LIMIT_MS);
        }
        reader.assertGaplessAndOnce(streams.stream().flatMap(s -> s.attempted().stream())
                .collect(Collectors.toSet()));
        assertThat(reader.queue(0).stream().filter(remoting0.acked()::contains).toList())
                .as("queue 0: its producer's acknowledged messages in send order, once")
                .containsExactlyElementsOf(remoting0.acked());
        assertThat(reader.queue(1).stream().filter(remoting1.acked()::contains).toList())
                .as("queue 1: its producer's acknowledged messages in send order, once (across A's death)")
                .containsExactlyElementsOf(remoting1.acked());
        assertThat(reader.bodies().stream().filter(body -> body.startsWith("delayed-")).toList())
                .as("the delayed message, due after the first seal").containsExactly("delayed-0");
        assertThat(reader.longestStallMillis()).as("the offset consumer's longest wait while producing")
                .isLessThan(STALL_LIMIT_MS);
    }

    /** Adds store group {@code name} through {@code via} and waits until {@code other} serves it too. */
    private void addGroup(final RunningBroker via, final RunningBroker other, final String name,
                          final String contracts) throws Exception {
        final String group = "{\"name\":\"" + name + "\",\"contracts\":\"" + contracts + "\"}";
        final HttpResponse<String> added = post(via, "/admin/cluster/groups", group);
        assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
        assertThat(post(other, "/admin/cluster/groups", group).statusCode()).as("a duplicate").isEqualTo(409);
        await("the other proxy serves " + name).atMost(WAIT)
                .until(() -> other.get("/cluster").body().contains("\"name\":\"" + name + "\""));
    }

    /** Whether {@code proxy}'s {@code GET /cluster} lists group {@code name} as retired. */
    private static boolean retired(final RunningBroker proxy, final String name) throws Exception {
        for (JsonNode group : JSON.readTree(proxy.get("/cluster").body()).path("groups")) {
            if (group.path("name").asText().equals(name)) {
                return group.path("retired").asBoolean();
            }
        }
        return false;
    }

    /**
     * Awaitility's wait, without its default of failing on an exception any thread leaves uncaught: the load's own
     * threads catch every client failure, and rocketmq-client-java's internal threads can throw one of their own (a
     * call's callback rejected by the executor of a client the load closed after its proxy died), which says nothing
     * about the broker.
     */
    private static ConditionFactory await(final String alias) {
        return Awaitility.await(alias).dontCatchUncaughtExceptions();
    }

    private void awaitEveryProducer(final int more) {
        final Map<LoadStream, Integer> before = new HashMap<>();
        streams.forEach(s -> before.put(s, s.acked().size()));
        await("every producer acknowledged " + more + " more").atMost(WAIT)
                .until(() -> streams.stream().allMatch(s -> s.acked().size() >= before.get(s) + more));
    }

    private DefaultMQProducer remotingProducer(final RunningBroker proxy) throws Exception {
        return cluster.remotingProducer(proxy, "elastic-delayer");
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

    /**
     * The offset consumer: a RocketMQ Remoting lite pull consumer assigned both queues of the topic, each read from
     * offset 0, on its own thread; keeps every message it reads (every protocol's) by queue.
     */
    private final class OffsetReader {
        private final DefaultLitePullConsumer consumer;
        private final Map<Integer, List<MessageExt>> read = new HashMap<>();
        private final Set<String> bodies = ConcurrentHashMap.newKeySet();
        private final List<Throwable> failures = new CopyOnWriteArrayList<>();
        private final AtomicBoolean done = new AtomicBoolean();
        private final AtomicLong longestStallMillis = new AtomicLong();
        private final Thread thread;

        OffsetReader(final RunningBroker proxy) throws Exception {
            consumer = new DefaultLitePullConsumer("elastic-reader");
            consumer.setNamesrvAddr(proxy.nameServer());
            consumer.setInstanceName("elastic-reader-" + System.nanoTime());
            consumer.setAutoCommit(false);
            // A new group starts at offset 0 by its consume-from-where. Not by a seek per queue: each seek interrupts
            // its queue's pull task, and a task interrupted in a request makes the client close its connection to
            // the proxy, failing the other queue's seek in flight on it (seen here as "send request failed").
            consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            consumer.setMqClientApiTimeout(CLIENT_TIMEOUT_MS);
            consumer.start();
            clients.add(consumer::shutdown);
            final List<MessageQueue> queues = new ArrayList<>(consumer.fetchMessageQueues(TOPIC));
            assertThat(queues).hasSize(2);
            consumer.assign(queues);
            thread = new Thread(this::read, "elastic-reader");
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            done.set(true);
            thread.join();
        }

        private void read() {
            long last = -1;
            try {
                while (!done.get()) {
                    final List<MessageExt> batch = consumer.poll(500);
                    final long now = System.nanoTime();
                    // A wait counts from the first message read (the client's start is not a stall) while producing.
                    if (last >= 0 && producing.get()) {
                        longestStallMillis.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(now - last), Math::max);
                    }
                    if (!batch.isEmpty()) {
                        synchronized (read) {
                            batch.forEach(m -> read.computeIfAbsent(m.getQueueId(), q -> new ArrayList<>()).add(m));
                        }
                        batch.forEach(m -> bodies.add(new String(m.getBody(), StandardCharsets.UTF_8)));
                        last = now;
                    }
                }
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }

        Set<String> bodies() {
            return bodies;
        }

        List<Throwable> failures() {
            return failures;
        }

        long longestStallMillis() {
            return longestStallMillis.get();
        }

        /** The bodies read from queue {@code q}, in offset order. */
        List<String> queue(final int q) {
            synchronized (read) {
                return read.getOrDefault(q, List.of()).stream()
                        .map(m -> new String(m.getBody(), StandardCharsets.UTF_8)).toList();
            }
        }

        /**
         * Each queue's offsets are 0, 1, 2 … (one gapless sequence across the seams), no message was read twice, and
         * every one read was sent (by a producer of the load, or the delayed one).
         */
        void assertGaplessAndOnce(final Set<String> sent) {
            synchronized (read) {
                assertThat(read.keySet()).containsExactlyInAnyOrder(0, 1);
                for (Map.Entry<Integer, List<MessageExt>> queue : read.entrySet()) {
                    final List<MessageExt> messages = queue.getValue();
                    for (int i = 0; i < messages.size(); i++) {
                        assertThat(messages.get(i).getQueueOffset()).as("queue %d: one gapless sequence",
                                queue.getKey()).isEqualTo(i);
                    }
                }
                final List<String> all = read.values().stream().flatMap(List::stream)
                        .map(m -> new String(m.getBody(), StandardCharsets.UTF_8)).toList();
                final Map<String, Long> counts = all.stream()
                        .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
                assertThat(counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList())
                        .as("stored once each").isEmpty();
                assertThat(all.stream().filter(body -> !sent.contains(body) && !body.equals("delayed-0")).toList())
                        .as("nothing stored that was not sent").isEmpty();
            }
        }
    }
}
