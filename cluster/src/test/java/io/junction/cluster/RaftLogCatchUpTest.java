package io.junction.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three in-JVM replicas with a small Raft log (a snapshot every 32 entries, 8 kept, 16 KiB segments; on a broker
 * {@code cluster.snapshot-interval-entries=32}, {@code cluster.log-keep-entries=8}, {@code
 * cluster.log-segment-size=16k}): the log stays bounded while the commit log grows, and a replica the purged log no
 * longer covers catches up from the leader's snapshot, whether it was down or lost its whole data directory.
 */
class RaftLogCatchUpTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final RaftLogLimits SMALL_LOG = new RaftLogLimits(32, 8, 16 << 10);
    private static final String TOPIC = "orders";
    private static final int BODY_BYTES = 4096;
    /**
     * Longer than StoreGroupTest's: these tests write for many seconds on a shared machine, and a leader that misses
     * its majority for twice this long steps down, failing the send in flight.
     */
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
    void shouldKeepTheRaftLogBoundedWhileTheCommitLogGrows() throws IOException {
        final List<ClusterMember> members = members();
        final List<Node> group = List.of(start("n1", members), start("n2", members), start("n3", members));
        final Node leader = awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        final int count = 1500;
        send(leader, 0, count);

        final long logEnd = leader.node().status().appliedLogEnd();
        for (Node n : group) {
            await(() -> n.node().status().appliedLogEnd() == logEnd, n.id() + " to apply everything");
        }
        // The commit log holds every message (4 KiB each: about 6 MiB); each Raft log about two segments at most.
        assertThat(logEnd).isGreaterThan((long) count * BODY_BYTES);
        for (Node n : group) {
            final long raftBytes = sizeOf(dir.resolve(n.id()).resolve("cluster").resolve("raft"));
            assertThat(raftBytes).as("Raft log of %s", n.id()).isLessThan(3L << 20);
            assertThat(readAll(n, count)).extracting(TestStores::body).containsExactlyElementsOf(bodies(0, count));
        }
    }

    @Test
    void shouldCatchUpAStoppedReplicaFromTheLeadersSnapshotAndThenLeadWithEveryMessage() throws IOException {
        final List<ClusterMember> members = members();
        final List<Node> group = new ArrayList<>(List.of(start("n1", members), start("n2", members),
                start("n3", members)));
        Node leader = awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        send(leader, 0, 50);
        final Node stopped = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        stop(stopped, group);

        // Well past the purge point: 1,000 entries, about 30 snapshots; a topic made meanwhile lives only in the
        // tables (its change was purged with the log).
        send(leader, 50, 1000);
        leader.messaging().topics().createIfAbsent(TopicConfig.of("made-while-down", 3)).join();
        send(leader, 1050, 200);
        leader.messaging().commitOffset("readers", TOPIC, 0, 777);

        final Node back = start(stopped.id(), members);
        group.add(back);
        await(() -> back.node().snapshotInstalls() >= 1, "the restarted replica to install the leader's snapshot");
        await(() -> back.node().status().appliedLogEnd() == leader.node().status().appliedLogEnd(),
                "the restarted replica to catch up");
        assertSameLog(leader.node().store(), back.node().store());
        assertThat(back.messaging().route("made-while-down")).map(TopicConfig::queueCount).contains(3);

        // It then follows the log normally.
        send(leader, 1250, 20);
        await(() -> back.messaging().maxOffset(TOPIC, 0) == 1270, "the replica to apply new sends");
        assertSameLog(leader.node().store(), back.node().store());

        // Make it lead (stop whoever else leads until it is elected): a consumer of it reads every message once.
        final Node newLeader = leadWith(back, group, members);
        assertThat(newLeader).isSameAs(back);
        assertThat(back.messaging().queryOffset("readers", TOPIC, 0)).isEqualTo(777);
        final List<StoredMessage> served = readAll(back, 1270);
        assertThat(served).extracting(TestStores::body).containsExactlyElementsOf(bodies(0, 1270));
        assertThat(served).extracting(StoredMessage::queueOffset)
                .containsExactlyElementsOf(IntStream.range(0, 1270).mapToObj(i -> (long) i).toList());
        assertThat(back.messaging().send(TestStores.text(TOPIC, "after")).join().queueOffset()).isEqualTo(1270);
    }

    @Test
    void shouldCatchUpAMemberWhoseDataDirectoryWasWiped() throws IOException {
        final List<ClusterMember> members = members();
        final List<Node> group = new ArrayList<>(List.of(start("n1", members), start("n2", members),
                start("n3", members)));
        final Node leader = awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        send(leader, 0, 600);
        final Node lost = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        stop(lost, group);
        deleteTree(dir.resolve(lost.id()));
        send(leader, 600, 100);

        final Node fresh = start(lost.id(), members);
        group.add(fresh);
        await(() -> fresh.node().snapshotInstalls() >= 1, "the empty replica to install the leader's snapshot");
        await(() -> fresh.node().status().appliedLogEnd() == leader.node().status().appliedLogEnd(),
                "the empty replica to catch up");
        assertSameLog(leader.node().store(), fresh.node().store());
        assertThat(readAll(fresh, 700)).extracting(TestStores::body).containsExactlyElementsOf(bodies(0, 700));
    }

    @Test
    void shouldFetchWhatALogShorterThanItsSnapshotLacksBeforeApplyingMore() throws IOException {
        final List<ClusterMember> members = members();
        final List<Node> group = new ArrayList<>(List.of(start("n1", members), start("n2", members),
                start("n3", members)));
        final Node leader = awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        send(leader, 0, 600);
        final Node damaged = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        await(() -> damaged.node().status().appliedLogEnd() == leader.node().status().appliedLogEnd(),
                "the follower to apply everything");
        stop(damaged, group);
        loseNewestSegments(damaged.id());

        final Node back = start(damaged.id(), members);
        group.add(back);
        send(leader, 600, 10);
        await(() -> back.node().status().appliedLogEnd() == leader.node().status().appliedLogEnd(),
                "the short replica to fetch what it lacks and apply the new sends");
        assertSameLog(leader.node().store(), back.node().store());
        assertThat(readAll(back, 610)).extracting(TestStores::body).containsExactlyElementsOf(bodies(0, 610));
    }

    @Test
    void shouldNotLeadWhileItsLogIsShorterThanItsSnapshotAndLeadOnceItFetchedTheRest() throws IOException {
        final List<ClusterMember> members = members();
        final List<Node> group = new ArrayList<>(List.of(start("n1", members), start("n2", members),
                start("n3", members)));
        final Node leader = awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        send(leader, 0, 600);
        final Node damaged = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        final Node third = group.stream().filter(n -> n != leader && n != damaged).findFirst().orElseThrow();
        await(() -> damaged.node().status().appliedLogEnd() == leader.node().status().appliedLogEnd(),
                "the follower to apply everything");
        // Followers first, the leader last: the leader's Raft log is then at least as long as the others' (a leader
        // stopping with running followers would hand its leadership, and a longer log, to one of them).
        stop(damaged, group);
        stop(third, group);
        stop(leader, group);
        loseNewestSegments(damaged.id());

        // The damaged replica would win the next election (its election timeout is a tenth of the other's), were it
        // to stand: its Raft log is as long as anyone's. It must not lead a log with a hole; the other one leads.
        final Node back = start(damaged.id(), members, Duration.ofMillis(300));
        final Node complete = start(leader.id(), members, Duration.ofMillis(3000));
        group.addAll(List.of(back, complete));
        assertThat(awaitLeader(group)).isSameAs(complete);
        assertThat(back.node().roleChanges()).as("times the short replica reopened as leader").isZero();
        assertThat(back.node().acceptsWrites()).isFalse();

        // Without any send (it makes an entry itself): it fetches what it lacks; then it may lead again, and leads with
        // everything. (Once complete, its far shorter timeout may win it the leadership at any moment: nothing is sent
        // until the leadership has settled on it.)
        await(() -> back.node().status().appliedLogEnd() == complete.node().status().appliedLogEnd(),
                "the short replica to fetch what it lacks with no send to the group");
        assertSameLog(complete.node().store(), back.node().store());
        stop(complete, group);
        final Node last = start(third.id(), members, Duration.ofMillis(3000));
        group.add(last);
        assertThat(awaitLeader(group)).isSameAs(back);
        send(back, 600, 10);
        await(() -> last.node().status().appliedLogEnd() == back.node().status().appliedLogEnd(),
                "the other replica to apply the new sends");
        assertSameLog(back.node().store(), last.node().store());
        assertThat(readAll(back, 610)).extracting(TestStores::body).containsExactlyElementsOf(bodies(0, 610));
        assertThat(back.messaging().send(TestStores.text(TOPIC, "after")).join().queueOffset()).isEqualTo(610);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /**
     * Deletes a stopped replica's two newest commit-log segments (as when a crash cuts a snapshot installation short):
     * its log then ends before the offset its last snapshot recorded.
     */
    private void loseNewestSegments(final String id) throws IOException {
        final List<Path> segments;
        try (Stream<Path> files = Files.list(dir.resolve(id).resolve("commitlog"))) {
            segments = files.sorted().toList();
        }
        assertThat(segments).hasSizeGreaterThan(2);
        Files.delete(segments.get(segments.size() - 1));
        Files.delete(segments.get(segments.size() - 2));
    }

    /** Both logs hold the same bytes up to the leader's end. */
    private static void assertSameLog(final MessageStore leader, final MessageStore replica) throws IOException {
        final long end = leader.logEnd();
        assertThat(replica.logEnd()).isGreaterThanOrEqualTo(end);
        long at = 0;
        while (at < end) {
            final ByteBuffer expected = leader.copyLog(at, end, 1 << 20);
            final ByteBuffer actual = replica.copyLog(at, at + expected.remaining(), 1 << 20);
            assertThat(actual).as("log bytes at %d", at).isEqualTo(expected);
            at += expected.remaining();
        }
    }

    /** Stops whoever else leads until {@code wanted} is elected (a stopped node restarts and catches up first). */
    private Node leadWith(final Node wanted, final List<Node> group, final List<ClusterMember> members) {
        for (int attempt = 0; attempt < 8; attempt++) {
            final Node leader = awaitLeader(group);
            if (leader == wanted) {
                return leader;
            }
            final long end = leader.node().status().appliedLogEnd();
            await(() -> wanted.node().status().appliedLogEnd() >= end, "the wanted node to apply the log");
            stop(leader, group);
            final Node now = awaitLeader(group);
            if (now == wanted) {
                return now;
            }
            final Node restarted = start(leader.id(), members);
            group.add(restarted);
            await(() -> restarted.node().status().appliedLogEnd() >= now.node().status().appliedLogEnd(),
                    "the restarted node to catch up");
        }
        throw new AssertionError(wanted.id() + " was never elected");
    }

    private void stop(final Node n, final List<Node> group) {
        n.node().close();
        group.remove(n);
        nodes.remove(n);
    }

    private static void send(final Node leader, final int from, final int count) {
        // One at a time: each send becomes one Raft entry, so the log passes many snapshot points.
        for (int i = from; i < from + count; i++) {
            assertThat(leader.messaging().send(Message.builder(TOPIC).queueId(0).body(body(i)).build()).join()
                    .queueOffset()).isEqualTo(i);
        }
    }

    private static byte[] body(final int i) {
        final byte[] b = new byte[BODY_BYTES];
        Arrays.fill(b, (byte) ('a' + i % 26));
        final byte[] label = ("m" + i + ":").getBytes(StandardCharsets.UTF_8);
        System.arraycopy(label, 0, b, 0, label.length);
        return b;
    }

    private static List<String> bodies(final int from, final int to) {
        return IntStream.range(from, to).mapToObj(i -> new String(body(i), StandardCharsets.UTF_8)).toList();
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

    private static long sizeOf(final Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        }
    }

    private static void deleteTree(final Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.delete(p);
            }
        }
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
        return start(id, members, ELECTION_TIMEOUT);
    }

    private Node start(final String id, final List<ClusterMember> members, final Duration electionTimeout) {
        final ClusterSettings settings = new ClusterSettings(id, members, electionTimeout, dir.resolve(id),
                contractPorts.get(id), SMALL_LOG);
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
