package io.junction.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.SendResult;
import io.junction.core.engine.StoreConfig;
import io.junction.core.message.Message;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A measurement, not a test of speed (it asserts only that every send was stored): the send throughput of three
 * in-JVM replicas; the bytes their commit logs and Raft logs hold per message (the Raft log is not purged during the
 * run: no snapshot); and the bytes this JVM wrote to disk per message ({@code /proc/self/io} write_bytes: every file
 * of the three replicas, consume queues and indexes included, counted by page). Runs only when asked:
 *
 * <pre>
 * mvn -B -o -pl cluster -am test -Dtest=GroupSendProbe -Dsurefire.failIfNoSpecifiedTests=false -Djunction.probe=true
 * </pre>
 */
@EnabledIfSystemProperty(named = "junction.probe", matches = "true")
class GroupSendProbe {
    private static final String TOPIC = "probe";
    private static final int BODY_BYTES = 4096;
    private static final int WARM_UP = 2_000;
    private static final int MEASURED = Integer.getInteger("junction.probe.messages", 20_000);
    private static final int IN_FLIGHT = 64;
    private static final RaftLogLimits UNPURGED = new RaftLogLimits(1_000_000, 1_000, 64L << 20);

    @TempDir
    Path dir;

    private final List<ClusterNode> nodes = new ArrayList<>();

    @AfterEach
    void stopAll() {
        nodes.forEach(ClusterNode::close);
    }

    @Test
    void measureSendThroughputAndBytesWrittenPerMessage() throws Exception {
        final List<ClusterMember> members = new ArrayList<>();
        final List<Integer> contractPorts = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            members.add(new ClusterMember("n" + i, "127.0.0.1", LocalPorts.next()));
            contractPorts.add(LocalPorts.next());
        }
        final List<ReplicaMessaging> replicas = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            final String id = "n" + (i + 1);
            final ReplicaMessaging messaging = new ReplicaMessaging();
            replicas.add(messaging);
            nodes.add(ClusterNode.start(new ClusterSettings(id, members, Duration.ofMillis(1500), dir.resolve(id),
                    contractPorts.get(i), UNPURGED), StoreConfig.builder(dir.resolve(id))
                    .segmentSize(64 << 20).build(), messaging::switchTo));
        }
        final int leader = ReplicaAwaits.awaitLeader(List.of(0, 1, 2), nodes::get, i -> "n" + (i + 1),
                Duration.ofSeconds(60));
        final ReplicaMessaging messaging = replicas.get(leader);
        messaging.topics().createIfAbsent(TopicConfig.of(TOPIC, 8)).join();

        sendAll(messaging, WARM_UP);
        final long bytesBefore = writeBytes();
        final long started = System.nanoTime();
        final Set<String> stored = sendAll(messaging, MEASURED);
        final long elapsed = System.nanoTime() - started;
        final long written = writeBytes() - bytesBefore;

        assertThat(stored).hasSize(MEASURED);
        final long logEnd = nodes.get(leader).store().logEnd();
        ReplicaAwaits.await(() -> nodes.stream().allMatch(n -> n.status().appliedLogEnd() == logEnd),
                "every replica to apply everything", Duration.ofSeconds(60));
        long raftBytes = 0;
        for (int i = 1; i <= 3; i++) {
            raftBytes += ReplicaLogs.raftLogContentBytes(dir.resolve("n" + i).resolve("cluster").resolve("raft"));
        }
        final int total = WARM_UP + MEASURED;
        System.out.printf("PROBE per message (%d sent, 3 replicas): commit logs %.0f B, Raft logs %.0f B%n", total,
                3.0 * logEnd / total, raftBytes / (double) total);
        System.out.printf("PROBE 3 replicas, %d sends of %d B, %d in flight: %.0f sends/s; disk writes %.0f B per "
                        + "message (all replicas; %.2fx the body bytes)%n", MEASURED, BODY_BYTES, IN_FLIGHT,
                MEASURED / (elapsed / 1e9), written / (double) MEASURED, written / (double) MEASURED / BODY_BYTES);
    }

    /** Sends {@code count} messages with at most {@link #IN_FLIGHT} unanswered; the queue positions stored. */
    private static Set<String> sendAll(final ReplicaMessaging messaging, final int count) throws Exception {
        final Semaphore window = new Semaphore(IN_FLIGHT);
        final Set<String> stored = ConcurrentHashMap.newKeySet();
        final List<CompletableFuture<SendResult>> sends = new ArrayList<>(count);
        final byte[] body = new byte[BODY_BYTES];
        for (int i = 0; i < count; i++) {
            window.acquire();
            final CompletableFuture<SendResult> send = messaging.send(Message.builder(TOPIC).queueId(i % 8)
                    .body(body).build());
            send.whenComplete((r, failure) -> {
                window.release();
                if (r != null) {
                    stored.add(r.queueId() + ":" + r.queueOffset());
                }
            });
            sends.add(send);
        }
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        return stored;
    }

    private static long writeBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
            if (line.startsWith("write_bytes:")) {
                return Long.parseLong(line.substring("write_bytes:".length()).trim());
            }
        }
        throw new IOException("no write_bytes in /proc/self/io");
    }
}
