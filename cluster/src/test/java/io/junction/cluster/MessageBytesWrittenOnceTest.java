package io.junction.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.SendResult;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three in-JVM replicas writing each message's bytes once: a log range's bytes travel as Ratis state-machine data
 * straight into every replica's commit log, and the Raft log keeps only (offset, length, CRC). The log here is never
 * purged (no snapshot within these tests), so what the Raft log holds is everything it was ever given.
 */
class MessageBytesWrittenOnceTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** No snapshot, no purge: the Raft log keeps every entry it wrote. */
    private static final RaftLogLimits UNPURGED = new RaftLogLimits(1_000_000, 1_000, 8 << 20);
    private static final String TOPIC = "orders";
    private static final int BODY_BYTES = 4096;
    private static final Duration ELECTION_TIMEOUT = Duration.ofMillis(1500);

    @TempDir
    Path dir;

    private final Map<String, Integer> contractPorts = new HashMap<>();
    private final List<Node> nodes = new ArrayList<>();

    private record Node(String id, ReplicaMessaging messaging, ClusterNode node) {
    }

    @AfterEach
    void stopAll() {
        for (Node n : nodes) {
            n.node().close();
        }
    }

    @Test
    void shouldKeepMessageBytesOutOfTheRaftLogAndInEveryCommitLog() throws IOException {
        final List<ClusterMember> members = members();
        final List<Node> group = List.of(start("n1", members), start("n2", members), start("n3", members));
        final Node leader = awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        final int count = 1000;
        send(leader, 0, count, "m");

        final long logEnd = leader.node().status().appliedLogEnd();
        for (Node n : group) {
            await(() -> n.node().status().appliedLogEnd() == logEnd, n.id() + " to apply everything");
        }
        final long messageBytes = (long) count * BODY_BYTES;
        for (Node n : group) {
            final long raftBytes = raftLogContentBytes(n.id());
            assertThat(raftBytes).as("Raft log entry bytes of %s for %d bytes of messages", n.id(), messageBytes)
                    .isPositive()
                    .isLessThan(messageBytes / 10);
            assertSameLog(leader.node().store(), n.node().store());
            assertThat(readAll(n, count)).extracting(TestStores::body).containsExactlyElementsOf(bodies("m", 0, count));
        }
    }

    @Test
    void shouldCatchUpAFollowerThatWasDownFromTheLeadersCommitLog() throws IOException {
        final List<ClusterMember> members = members();
        final List<Node> group = new ArrayList<>(List.of(start("n1", members), start("n2", members),
                start("n3", members)));
        final Node leader = awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        send(leader, 0, 20, "m");
        final Node stopped = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        stop(stopped, group);
        send(leader, 20, 200, "m");
        final long readsBefore = leader.node().stateMachineDataReads();

        final Node back = start(stopped.id(), members);
        group.add(back);
        await(() -> back.node().status().appliedLogEnd() == leader.node().status().appliedLogEnd(),
                "the restarted follower to catch up");
        // From the Raft log (no snapshot was taken), its entries' bytes read back from the leader's commit log.
        assertThat(back.node().snapshotInstalls()).isZero();
        // (Ratis may still hold one request it built for the follower before it stopped, and send that again.)
        assertThat(leader.node().stateMachineDataReads() - readsBefore).as("ranges read back to send them again")
                .isGreaterThanOrEqualTo(190);
        assertSameLog(leader.node().store(), back.node().store());
        assertThat(readAll(back, 220)).extracting(TestStores::body).containsExactlyElementsOf(bodies("m", 0, 220));
    }

    @Test
    void shouldCutALeadersUncommittedRangesOnceItRejoinsAndNeverShowThem() throws IOException {
        final List<ClusterMember> members = members();
        final List<Node> group = new ArrayList<>(List.of(start("n1", members), start("n2", members),
                start("n3", members)));
        final Node old = awaitLeader(group);
        old.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        send(old, 0, 20, "m");
        final long committedEnd = old.node().status().appliedLogEnd();
        for (Node n : group) {
            await(() -> n.node().status().appliedLogEnd() == committedEnd, n.id() + " to apply everything");
        }
        final List<Node> followers = group.stream().filter(n -> n != old).toList();
        for (Node f : followers) {
            stop(f, group);
        }

        // Alone, the leader writes these to its log and its Raft log, but no majority ever commits them.
        final List<CompletableFuture<SendResult>> uncommitted = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            uncommitted.add(old.messaging().send(Message.builder(TOPIC).queueId(0).body(body("lost", i)).build()));
        }
        await(() -> old.node().store().logEnd() > committedEnd, "the leader to write the uncommitted sends");
        assertThat(old.messaging().maxOffset(TOPIC, 0)).as("consumers see nothing uncommitted").isEqualTo(20);
        assertThat(pull(old, 20)).isEmpty();
        final long uncommittedEnd = old.node().store().logEnd();
        stop(old, group);
        assertThat(uncommitted).noneMatch(f -> f.isDone() && !f.isCompletedExceptionally());

        // The others elect a leader and write other messages at the same log offsets.
        for (Node f : followers) {
            group.add(start(f.id(), members));
        }
        final Node successor = awaitLeader(group);
        send(successor, 20, 10, "m");
        assertThat(successor.node().store().logEnd()).isGreaterThan(committedEnd);

        // The old leader rejoins: Ratis replaces its uncommitted entries, and its log is the successor's, byte for byte.
        final Node rejoined = start(old.id(), members);
        group.add(rejoined);
        await(() -> rejoined.node().status().appliedLogEnd() == successor.node().status().appliedLogEnd(),
                "the old leader to rejoin and catch up");
        send(successor, 30, 5, "m");
        await(() -> rejoined.node().status().appliedLogEnd() == successor.node().status().appliedLogEnd(),
                "the old leader to apply new sends");
        for (Node n : group) {
            assertThat(n.node().store().logEnd()).as("log end of %s (the old leader wrote up to %d)", n.id(),
                    uncommittedEnd).isEqualTo(successor.node().store().logEnd());
            assertSameLog(successor.node().store(), n.node().store());
            final List<StoredMessage> served = readAll(n, 35);
            assertThat(served).extracting(TestStores::body).containsExactlyElementsOf(bodies("m", 0, 35));
            assertThat(served).extracting(StoredMessage::queueOffset)
                    .containsExactlyElementsOf(IntStream.range(0, 35).mapToObj(i -> (long) i).toList());
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /**
     * The bytes of entries in a replica's Raft log segments: each file up to its last non-zero byte (Ratis
     * preallocates segment files with zeros, so their size says little).
     */
    private long raftLogContentBytes(final String id) throws IOException {
        final List<Path> segments;
        try (Stream<Path> files = Files.walk(dir.resolve(id).resolve("cluster").resolve("raft"))) {
            segments = files.filter(Files::isRegularFile).filter(p -> p.getFileName().toString().startsWith("log_"))
                    .toList();
        }
        assertThat(segments).isNotEmpty();
        long total = 0;
        for (Path segment : segments) {
            total += contentLength(segment);
        }
        return total;
    }

    private static long contentLength(final Path file) throws IOException {
        long last = -1;
        long at = 0;
        final byte[] chunk = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(chunk)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (chunk[i] != 0) {
                        last = at + i;
                    }
                }
                at += n;
            }
        }
        return last + 1;
    }

    /** Both logs hold the same bytes up to the first one's end. */
    private static void assertSameLog(final MessageStore expected, final MessageStore replica) throws IOException {
        final long end = expected.logEnd();
        assertThat(replica.logEnd()).isGreaterThanOrEqualTo(end);
        long at = 0;
        while (at < end) {
            final ByteBuffer want = expected.copyLog(at, end, 1 << 20);
            final ByteBuffer actual = replica.copyLog(at, at + want.remaining(), 1 << 20);
            assertThat(actual).as("log bytes at %d", at).isEqualTo(want);
            at += want.remaining();
        }
    }

    private void stop(final Node n, final List<Node> group) {
        n.node().close();
        group.remove(n);
        nodes.remove(n);
    }

    private static void send(final Node leader, final int from, final int count, final String label) {
        // One at a time: each send becomes one Raft entry.
        for (int i = from; i < from + count; i++) {
            assertThat(leader.messaging().send(Message.builder(TOPIC).queueId(0).body(body(label, i)).build()).join()
                    .queueOffset()).isEqualTo(i);
        }
    }

    private static byte[] body(final String label, final int i) {
        final byte[] b = new byte[BODY_BYTES];
        Arrays.fill(b, (byte) ('a' + i % 26));
        final byte[] text = (label + i + ":").getBytes(StandardCharsets.UTF_8);
        System.arraycopy(text, 0, b, 0, text.length);
        return b;
    }

    private static List<String> bodies(final String label, final int from, final int to) {
        return IntStream.range(from, to).mapToObj(i -> new String(body(label, i), StandardCharsets.UTF_8)).toList();
    }

    private static List<StoredMessage> pull(final Node node, final long offset) {
        return node.messaging().pull(new PullRequest("test", TOPIC, 0, offset, 32, null, 0)).join().messages();
    }

    private static List<StoredMessage> readAll(final Node node, final int expected) {
        final List<StoredMessage> all = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long offset = 0;
        while (all.size() < expected && System.nanoTime() < deadline) {
            final PullResult r = node.messaging().pull(new PullRequest("test", TOPIC, 0, offset, 32, null, 0))
                    .join();
            all.addAll(r.messages());
            offset = r.nextOffset();
        }
        return all;
    }

    private List<ClusterMember> members() throws IOException {
        final List<ClusterMember> members = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            members.add(new ClusterMember("n" + i, "127.0.0.1", LocalPorts.next()));
            contractPorts.put("n" + i, LocalPorts.next());
        }
        return members;
    }

    private Node start(final String id, final List<ClusterMember> members) {
        final ClusterSettings settings = new ClusterSettings(id, members, ELECTION_TIMEOUT, dir.resolve(id),
                contractPorts.get(id), UNPURGED);
        final ReplicaMessaging messaging = new ReplicaMessaging();
        final ClusterNode node = ClusterNode.start(settings, TestStores.small(dir.resolve(id)).build(),
                messaging::switchTo);
        final Node n = new Node(id, messaging, node);
        nodes.add(n);
        return n;
    }

    private static Node awaitLeader(final List<Node> among) {
        return ReplicaAwaits.awaitLeader(among, Node::node, Node::id, WAIT);
    }

    private static void await(final BooleanSupplier condition, final String what) {
        ReplicaAwaits.await(condition, what, WAIT);
    }
}
