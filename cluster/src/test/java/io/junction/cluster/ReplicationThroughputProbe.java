package io.junction.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.Messaging;
import io.junction.core.SendResult;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.message.Message;
import io.junction.core.meta.TopicConfig;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A measurement, not a test of speed (it asserts only that every send was stored, once): the throughput of sync
 * senders (each thread waits for its send's answer before the next, as the Remoting benchmark's 32 threads do) against
 * a single-node store and against a group of three in-JVM replicas, in alternating rounds (a fresh store or group
 * each), so a disturbance by another tenant of the machine falls on both alike. For the group it also counts the
 * log-range entries committed (messages per Raft entry); for both, the JVM's CPU per message (at a fixed rate, {@code
 * junction.probe.rate}, a steadier figure than throughput on a shared machine). Runs only when asked:
 *
 * <pre>
 * mvn -B -o -pl cluster -am test -Dtest=ReplicationThroughputProbe -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Djunction.probe=true [-Djunction.probe.rounds=3 -Djunction.probe.senders=32 -Djunction.probe.seconds=10 \
 *     -Djunction.probe.rate=0 -Djunction.probe.systems=single,group]
 * </pre>
 *
 * <p>An A/B of Ratis settings: {@code -Djunction.probe.variants='before;after:raft.server.some.key=value'} (variants
 * separated by {@code ;}, each a name and, after a colon, Ratis properties {@code key=value} separated by {@code ,}
 * that override the node's own) runs a group of each variant in every round, alternating.
 */
@EnabledIfSystemProperty(named = "junction.probe", matches = "true")
class ReplicationThroughputProbe {
    private static final String TOPIC = "probe";
    private static final int QUEUES = 8;
    private static final int BODY_BYTES = Integer.getInteger("junction.probe.body", 1024);
    private static final int SENDERS = Integer.getInteger("junction.probe.senders", 32);
    private static final int ROUNDS = Integer.getInteger("junction.probe.rounds", 3);
    private static final int SECONDS = Integer.getInteger("junction.probe.seconds", 10);
    private static final int WARM_UP_SECONDS = Integer.getInteger("junction.probe.warmup", 3);
    /** Sends per second of all senders together, each paced to its share; 0: as fast as answers come. */
    private static final int RATE = Integer.getInteger("junction.probe.rate", 0);
    private static final String SYSTEMS = System.getProperty("junction.probe.systems", "single,group");
    private static final String VARIANTS = System.getProperty("junction.probe.variants", "group");

    @TempDir
    Path dir;

    @Test
    void measureSyncSendThroughputOfOneAndThreeReplicas() throws Exception {
        final List<Double> single = new ArrayList<>();
        final Map<String, Map<String, String>> variants = variants();
        final Map<String, List<Double>> groups = new LinkedHashMap<>();
        for (int round = 1; round <= ROUNDS; round++) {
            if (SYSTEMS.contains("single")) {
                single.add(singleNode(dir.resolve("single-" + round)));
            }
            if (SYSTEMS.contains("group")) {
                for (Map.Entry<String, Map<String, String>> v : variants.entrySet()) {
                    groups.computeIfAbsent(v.getKey(), k -> new ArrayList<>()).add(threeReplicas(
                            dir.resolve(v.getKey() + "-" + round), v.getKey(), v.getValue()));
                }
            }
        }
        for (Map.Entry<String, List<Double>> g : groups.entrySet()) {
            System.out.printf("PROBE %d sync senders, %d B: single node %s sends/s (median %.0f); 3 replicas (%s) %s "
                            + "sends/s (median %.0f); ratio of medians %.3f%n", SENDERS, BODY_BYTES, single,
                    median(single), g.getKey(), g.getValue(), median(g.getValue()),
                    median(g.getValue()) / median(single));
        }
    }

    /** The groups to measure, by name: each with the Ratis properties that override the node's own. */
    private static Map<String, Map<String, String>> variants() {
        final Map<String, Map<String, String>> variants = new LinkedHashMap<>();
        for (String variant : VARIANTS.split(";")) {
            final String[] nameAndProperties = variant.split(":", 2);
            final Map<String, String> overrides = new LinkedHashMap<>();
            if (nameAndProperties.length == 2 && !nameAndProperties[1].isBlank()) {
                for (String property : nameAndProperties[1].split(",")) {
                    final String[] kv = property.split("=", 2);
                    overrides.put(kv[0].trim(), kv[1].trim());
                }
            }
            variants.put(nameAndProperties[0].trim(), overrides);
        }
        return variants;
    }

    private double singleNode(final Path root) throws Exception {
        try (MessageStore store = MessageStore.open(StoreConfig.builder(root).segmentSize(64 << 20).build())) {
            store.topics().createIfAbsent(TopicConfig.of(TOPIC, QUEUES)).join();
            return load("single node", store, null);
        }
    }

    private double threeReplicas(final Path root, final String variant, final Map<String, String> raftOverrides)
            throws Exception {
        final List<ClusterMember> members = new ArrayList<>();
        final List<Integer> contractPorts = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            members.add(new ClusterMember("n" + i, "127.0.0.1", LocalPorts.next()));
            contractPorts.add(LocalPorts.next());
        }
        final List<ClusterNode> nodes = new ArrayList<>();
        final List<ReplicaMessaging> replicas = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                final String id = "n" + (i + 1);
                final ReplicaMessaging messaging = new ReplicaMessaging();
                replicas.add(messaging);
                nodes.add(ClusterNode.start(new ClusterSettings(id, members, Duration.ofMillis(1500), root.resolve(id),
                        contractPorts.get(i), RaftLogLimits.DEFAULT), StoreConfig.builder(root.resolve(id))
                        .segmentSize(64 << 20).build(), messaging::switchTo, raftOverrides));
            }
            final int leader = ReplicaAwaits.awaitLeader(List.of(0, 1, 2), nodes::get, i -> "n" + (i + 1),
                    Duration.ofSeconds(60));
            final ReplicaMessaging messaging = replicas.get(leader);
            messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, QUEUES)).join();
            final AtomicLong entries = new AtomicLong();
            nodes.get(leader).observeCommitLatency(nanos -> entries.incrementAndGet());
            return load("3 replicas (" + variant + ")", messaging, entries);
        } finally {
            nodes.forEach(ClusterNode::close);
        }
    }

    /** Warms up, then runs {@link #SENDERS} sync senders for {@link #SECONDS}; sends per second. */
    private static double load(final String label, final Messaging messaging, final AtomicLong entries)
            throws Exception {
        run(messaging, TimeUnit.SECONDS.toNanos(WARM_UP_SECONDS), ConcurrentHashMap.newKeySet());
        final Set<String> stored = ConcurrentHashMap.newKeySet();
        final long entriesBefore = entries == null ? 0 : entries.get();
        final long cpuBefore = processCpuNanos();
        final long started = System.nanoTime();
        final int sent = run(messaging, TimeUnit.SECONDS.toNanos(SECONDS), stored);
        final long elapsed = System.nanoTime() - started;
        final long cpu = processCpuNanos() - cpuBefore;
        assertThat(stored).as("every acknowledged send at its own queue position").hasSize(sent);
        final double rate = sent / (elapsed / 1e9);
        System.out.printf("PROBE %s: %d sends in %.1f s: %.0f sends/s, JVM CPU %.0f us per message%s (load %s)%n",
                label, sent, elapsed / 1e9, rate, cpu / 1e3 / sent, entries == null ? ""
                        : String.format(", %d log-range entries, %.1f messages per entry", entries.get() - entriesBefore,
                        sent / (double) Math.max(1, entries.get() - entriesBefore)),
                Arrays.toString(loadAverage()));
        return rate;
    }

    /** {@link #SENDERS} threads each send, wait for the answer and send again until the time is up. */
    private static int run(final Messaging messaging, final long nanos, final Set<String> stored) throws Exception {
        final AtomicInteger sent = new AtomicInteger();
        final AtomicLong failures = new AtomicLong();
        final long end = System.nanoTime() + nanos;
        final byte[] body = new byte[BODY_BYTES];
        final List<Thread> senders = new ArrayList<>();
        for (int t = 0; t < SENDERS; t++) {
            final int queue = t % QUEUES;
            final long interval = RATE == 0 ? 0 : TimeUnit.SECONDS.toNanos(SENDERS) / RATE;
            final long first = System.nanoTime() + interval * t / SENDERS;
            final Thread sender = new Thread(() -> {
                long next = first;
                while (System.nanoTime() < end) {
                    if (interval > 0) {
                        // Paced: the next send at its intended time (a measurement's pacing, not a wait for state).
                        LockSupport.parkNanos(next - System.nanoTime());
                        next += interval;
                    }
                    try {
                        final SendResult r = messaging.send(Message.builder(TOPIC).queueId(queue).body(body).build())
                                .get(30, TimeUnit.SECONDS);
                        stored.add(r.queueId() + ":" + r.queueOffset());
                        sent.incrementAndGet();
                    } catch (Exception e) {
                        failures.incrementAndGet();
                    }
                }
            }, "probe-sender-" + t);
            sender.start();
            senders.add(sender);
        }
        for (Thread t : senders) {
            t.join();
        }
        assertThat(failures.get()).as("failed sends").isZero();
        return sent.get();
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static double[] loadAverage() {
        return new double[] {ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()};
    }

    private static double median(final List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        final List<Double> sorted = values.stream().sorted().toList();
        final int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
