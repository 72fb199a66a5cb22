package io.junction.conformance.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.history.History;
import io.junction.conformance.support.ClusterLaunch;
import io.junction.conformance.support.FreePorts;
import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import java.io.IOException;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Three broker processes form one store group under load from every protocol, spread over all nodes: per node a
 * RocketMQ Remoting producer (sync sends; it knows every node as a name server), an MQTT 5 QoS 1 publisher, a Qpid
 * JMS (AMQP 1.0) producer and a CloudEvents HTTP poster. The leader is SIGKILLed at random moments and restarted on
 * the same ports each time; once a follower is SIGSTOPped for three election timeouts and then continued.
 *
 * <p>At one kill a RocketMQ 5 gRPC simple consumer (POP) holds probe messages it received through a follower
 * without acking them; they must come back after their invisible time, not before half of it ({@link GrpcPopProbe}).
 *
 * <p>After each kill some send must be acknowledged on a survivor within the bound (5 s unless
 * {@code -Djunction.chaos.failover-bound-ms}); the measured time is printed. After the run every acknowledged message
 * of every protocol must be in the final leader's store with its exact bytes, read once each by a fresh RocketMQ
 * consumer group per topic. No producer retries a failed send by itself, so any message read twice was stored twice
 * (counted and printed; none is allowed). A message whose send failed may still be stored (it reached the log before
 * the kill): counted as "stored though not acknowledged", which is allowed.
 *
 * <p>Tag {@code long}: not part of the default {@code mvn verify}; the README ("Cluster") says how to run it.
 * {@code -Djunction.chaos.kills} (default 10), {@code -Djunction.chaos.seed} replays the random choices (kill moments,
 * message sizes).
 */
@Tag("cluster")
@Tag("long")
class ClusterChaosIT {
    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    private static final int NODES = 3;
    private static final int ELECTION_TIMEOUT_MS = 1000;
    /** The streams of the ledger (one per protocol), each with its own topic. */
    private static final Map<String, String> TOPICS = Map.of("R", "chaosR", "M", "chaosM", "A", "chaosA",
            "H", "chaosH");
    private static final Map<String, String> PROTOCOLS = Map.of("R", "Remoting", "M", "MQTT QoS 1", "A",
            "AMQP (JMS)", "H", "CloudEvents HTTP");
    private static final Pattern CONTRACT = Pattern.compile("\"contract\":\"[^\"]+\"");
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String PROBE_TOPIC = "chaosP";
    private static final Duration PROBE_INVISIBLE = Duration.ofSeconds(20);

    private final List<RunningBroker> nodes = new ArrayList<>();
    private final List<ChaosProducer> producers = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private ExecutorService threads;
    private final ExecutorService probeThread = Executors.newSingleThreadExecutor();
    private GrpcPopProbe probe;
    private long stoppedPid = -1;

    @AfterEach
    void stopAll() throws Exception {
        stop.set(true);
        if (stoppedPid > 0) {
            signal("CONT", stoppedPid); // a failed run must not leave a stopped process behind
        }
        if (threads != null) {
            threads.shutdownNow();
            threads.awaitTermination(30, TimeUnit.SECONDS);
        }
        probeThread.shutdownNow();
        if (probe != null) {
            probe.close();
        }
        nodes.forEach(RunningBroker::close);
    }

    @Test
    void shouldDeliverEveryAcknowledgedMessageOfEveryProtocolAcrossLeaderKills() throws Exception {
        final int kills = Integer.getInteger("junction.chaos.kills", 10);
        final long bound = Long.getLong("junction.chaos.failover-bound-ms", 5000);
        final long seed = Long.getLong("junction.chaos.seed", new SecureRandom().nextLong());
        System.out.println("ClusterChaosIT: " + kills + " kills, seed " + seed + " (replay with -Djunction.chaos.seed="
                + seed + ")");
        final Random random = new Random(seed);
        final Ledger ledger = new Ledger();

        startCluster();
        final RunningBroker first = ClusterLaunch.awaitLeader(nodes, WAIT);
        nodes.forEach(n -> await("every member's contract address on " + n.nameServer()).atMost(WAIT)
                .pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> CONTRACT.matcher(n.get("/cluster").body()).results().count() == NODES));
        System.out.println("ClusterChaosIT: first leader " + first.nameServer());

        startProducers(ledger, random);
        await("every producer's first acknowledgement").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> producers.stream().allMatch(p -> p.acknowledged() > 0));

        final int stopAfterKill = 1 + random.nextInt(kills);
        final int probeKill = 1 + random.nextInt(Math.max(1, kills / 2));
        probe = new GrpcPopProbe(ledger, PROBE_TOPIC, PROBE_INVISIBLE);
        final List<Long> failoverMillis = new ArrayList<>();
        for (int kill = 1; kill <= kills; kill++) {
            TimeUnit.MILLISECONDS.sleep(1000 + random.nextInt(3000)); // the random kill moment, not a wait
            final RunningBroker leader = ClusterLaunch.awaitLeader(nodes, WAIT);
            final int killed = nodes.indexOf(leader) + 1;
            if (kill == probeKill) {
                // POP messages in flight at this kill: popped through a follower, from the leader about to die.
                final RunningBroker follower = nodes.get(killed % NODES);
                probe.sendAndPop(follower.grpcEndpoint(), leader.nameServer(), killed, random);
                System.out.printf("ClusterChaosIT: POP probe messages popped through n%d before kill %d%n",
                        killed % NODES + 1, kill);
            }
            final long killedAt = System.nanoTime();
            producers.forEach(p -> p.mark(killedAt));
            leader.kill();
            if (kill == probeKill) {
                probeThread.execute(() -> probe.watch(stop));
            }
            final long firstAck = awaitFirstAck(p -> p.node() != killed);
            final long millis = TimeUnit.NANOSECONDS.toMillis(firstAck - killedAt);
            failoverMillis.add(millis);
            System.out.printf("ClusterChaosIT: kill %d of the leader n%d; first acknowledged send on a survivor "
                    + "after %d ms%n", kill, killed, millis);
            leader.startOnSamePorts();
            if (kill == stopAfterKill) {
                pauseAFollower(random);
            }
        }

        try {
            await("the POP probe's messages back after their invisible time").atMost(WAIT)
                    .pollInterval(Duration.ofMillis(100)).until(probe::allBack);
        } catch (final org.awaitility.core.ConditionTimeoutException e) {
            // asserted below, after the drain has shown whether the probe's messages are still stored
        }
        stop.set(true);
        threads.shutdown();
        assertThat(threads.awaitTermination(60, TimeUnit.SECONDS)).as("producers stopped").isTrue();
        final RunningBroker last = ClusterLaunch.awaitLeader(nodes, WAIT);
        for (Map.Entry<String, String> t : TOPICS.entrySet()) {
            RemotingDrain.drain(last.process(), t.getValue(), t.getKey(), ledger, Duration.ofSeconds(120));
        }
        RemotingDrain.drain(last.process(), PROBE_TOPIC, GrpcPopProbe.STREAM, ledger, Duration.ofSeconds(60));

        final Ledger.Verdict verdict = ledger.verdict();
        final History.Report report = verdict.report();
        printSummary(failoverMillis, ledger, verdict);
        assertThat(report.lost()).as("acknowledged messages not delivered").isEmpty();
        assertThat(verdict.wrongContent()).as("messages delivered with other bytes or ids than sent").isEmpty();
        assertThat(verdict.unreadable()).as("deliveries without an id").isEmpty();
        assertThat(verdict.foreign()).as("delivered messages nobody sent").isEmpty();
        assertThat(verdict.duplicatesByStream().keySet()).as("read once by a fresh group, no client retries: a "
                + "duplicate was stored twice").isSubsetOf(GrpcPopProbe.STREAM); // the probe's are its redeliveries
        assertThat(probe.allBack()).as("POP probe messages back after their invisible time: " + probe.describe())
                .isTrue();
        assertThat(probe.early()).as("POP probe messages back before half their invisible time").isEmpty();
        assertThat(failoverMillis).as("kill to first acknowledged send on a survivor, ms")
                .allMatch(ms -> ms <= bound);
    }

    private void startCluster() {
        final String members = ClusterLaunch.members(NODES);
        final List<RunningBroker.Builder> builders = new ArrayList<>();
        for (int i = 1; i <= NODES; i++) {
            builders.add(RunningBroker.builder()
                    .set("cluster.node-id", "n" + i)
                    .set("cluster.members", members)
                    .set("cluster.contract-port", Integer.toString(FreePorts.next()))
                    .set("cluster.election-timeout-ms", Integer.toString(ELECTION_TIMEOUT_MS))
                    .set("store.segment-size", "16m")
                    .set("kafka.enabled", "false")
                    .jvmArgs("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        }
        ClusterLaunch.startTogether(builders, nodes);
    }

    /** Per node one producer of each protocol; the Remoting one lists that node first among its name servers. */
    private void startProducers(final Ledger ledger, final Random random) {
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        for (int i = 0; i < NODES; i++) {
            final RunningBroker node = nodes.get(i);
            final int n = i + 1;
            final String nameServers = IntStream.range(0, NODES).mapToObj(k -> nodes.get((n - 1 + k) % NODES))
                    .map(RunningBroker::nameServer).collect(Collectors.joining(";"));
            final int mqttPort = node.mqttPort();
            final int amqpPort = node.amqpPort();
            final String httpBase = node.httpBase();
            final int[] connects = new int[1];
            producers.add(new ChaosProducer("R", n,
                    () -> ChaosSenders.remoting(nameServers, TOPICS.get("R"), "chaos-n" + n), ledger,
                    new Random(random.nextLong()), stop));
            producers.add(new ChaosProducer("M", n,
                    () -> ChaosSenders.mqtt(mqttPort, TOPICS.get("M"), "chaos-n" + n + "-" + connects[0]++), ledger,
                    new Random(random.nextLong()), stop));
            producers.add(new ChaosProducer("A", n, () -> ChaosSenders.jms(amqpPort, TOPICS.get("A")), ledger,
                    new Random(random.nextLong()), stop));
            producers.add(new ChaosProducer("H", n, () -> ChaosSenders.cloudEvents(http, httpBase, TOPICS.get("H")),
                    ledger, new Random(random.nextLong()), stop));
        }
        threads = Executors.newFixedThreadPool(producers.size());
        producers.forEach(threads::execute);
    }

    /**
     * SIGSTOPs a follower for three election timeouts, then SIGCONTs it: the other two keep taking writes meanwhile,
     * and afterwards exactly one node leads and the continued node's producers are acknowledged again.
     */
    private void pauseAFollower(final Random random) throws Exception {
        final RunningBroker leader = ClusterLaunch.awaitLeader(nodes, WAIT);
        final List<RunningBroker> followers = nodes.stream().filter(n -> n != leader).toList();
        final RunningBroker follower = followers.get(random.nextInt(followers.size()));
        final int paused = nodes.indexOf(follower) + 1;
        stoppedPid = follower.process().pid();
        final long stoppedAt = System.nanoTime();
        producers.forEach(p -> p.mark(stoppedAt));
        signal("STOP", stoppedPid);
        TimeUnit.MILLISECONDS.sleep(3L * ELECTION_TIMEOUT_MS); // the length of the partition, not a wait
        final boolean othersAcked = producers.stream().anyMatch(p -> p.node() != paused && p.firstAckAfterMark() != 0);
        final long continuedAt = System.nanoTime();
        producers.forEach(p -> p.mark(continuedAt));
        signal("CONT", stoppedPid);
        stoppedPid = -1;
        assertThat(othersAcked).as("the two running nodes take writes while n" + paused + " is stopped").isTrue();
        ClusterLaunch.awaitLeader(nodes, WAIT);
        final long back = awaitFirstAck(p -> p.node() == paused);
        System.out.printf("ClusterChaosIT: follower n%d stopped for %d ms; its producers acknowledged again %d ms "
                        + "after SIGCONT%n", paused, TimeUnit.NANOSECONDS.toMillis(continuedAt - stoppedAt),
                TimeUnit.NANOSECONDS.toMillis(back - continuedAt));
    }

    /** The earliest acknowledgement after the producers' mark among the selected producers. */
    private long awaitFirstAck(final java.util.function.Predicate<ChaosProducer> which) {
        await("a send acknowledged after the mark").atMost(WAIT).pollInterval(Duration.ofMillis(10))
                .until(() -> producers.stream().filter(which).anyMatch(p -> p.firstAckAfterMark() != 0));
        return producers.stream().filter(which).mapToLong(ChaosProducer::firstAckAfterMark).filter(t -> t != 0)
                .min().orElseThrow();
    }

    private void printSummary(final List<Long> failoverMillis, final Ledger ledger, final Ledger.Verdict verdict) {
        final List<Long> sorted = failoverMillis.stream().sorted().toList();
        final long median = sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
        final long max = sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1);
        final StringBuilder s = new StringBuilder("ClusterChaosIT summary: ").append(failoverMillis.size())
                .append(" leader kills; kill to first acknowledged send: median ").append(median).append(" ms, max ")
                .append(max).append(" ms, all ").append(failoverMillis).append('\n');
        for (String stream : List.of("R", "M", "A", "H")) {
            final int failed = producers.stream().filter(p -> p.stream().equals(stream))
                    .mapToInt(ChaosProducer::failed).sum();
            s.append(String.format("  %-17s acknowledged %6d, delivered %6d, missing %d, duplicated %d, "
                            + "stored though not acknowledged %d, failed sends %d (attempted %d)%n",
                    PROTOCOLS.get(stream), ledger.acknowledgedCount(stream),
                    ledger.acknowledgedCount(stream) - ledger.missing(stream), ledger.missing(stream),
                    verdict.duplicates(stream), verdict.recoveredByStream().getOrDefault(stream, 0), failed,
                    ledger.attemptedCount(stream)));
        }
        s.append("  ").append(probe.describe()).append('\n');
        s.append("  history: ").append(verdict.report());
        System.out.println(s);
    }

    private static void signal(final String signal, final long pid) throws IOException, InterruptedException {
        final int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
        assertThat(exit).as("kill -" + signal + " " + pid).isZero();
    }
}
