package io.junction.cluster;

import static io.junction.cluster.ReplicaLogs.assertSameLog;
import static org.assertj.core.api.Assertions.assertThat;

import io.junction.cluster.InJvmReplicaGroup.Node;
import io.junction.core.engine.TestStores;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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

    @RegisterExtension
    final InJvmReplicaGroup replicas = InJvmReplicaGroup.builder().electionTimeout(ELECTION_TIMEOUT).raftLog(SMALL_LOG)
            .waitAtMost(WAIT).build();

    @Test
    void shouldKeepTheRaftLogBoundedWhileTheCommitLogGrows() throws IOException {
        final List<Node> group = replicas.startAll();
        final Node leader = replicas.awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        // About 25 snapshot points, and more commit log (about 3.2 MiB) than a Raft log may hold here.
        final int count = 800;
        send(leader, 0, count);

        final long logEnd = leader.node().status().appliedLogEnd();
        for (Node n : group) {
            replicas.await(() -> n.node().status().appliedLogEnd() == logEnd, n.id() + " to apply everything");
        }
        // The commit log holds every message (4 KiB each); each Raft log about two segments at most.
        assertThat(logEnd).isGreaterThan((long) count * BODY_BYTES);
        for (Node n : group) {
            final long raftBytes = sizeOf(replicas.dataDir(n.id()).resolve("cluster").resolve("raft"));
            assertThat(raftBytes).as("Raft log of %s", n.id()).isLessThan(3L << 20);
            assertThat(n.readAll(TOPIC, count)).extracting(TestStores::body)
                    .containsExactlyElementsOf(bodies(0, count));
        }
    }

    @Test
    void shouldCatchUpAStoppedReplicaFromTheLeadersSnapshotAndThenLeadWithEveryMessage() throws IOException {
        final List<Node> group = replicas.startAll();
        Node leader = replicas.awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        send(leader, 0, 50);
        final Node stopped = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        replicas.stop(stopped, group);

        // Well past the purge point: 600 entries, about 18 snapshots; a topic made meanwhile lives only in the
        // tables (its change was purged with the log).
        send(leader, 50, 600);
        leader.messaging().topics().createIfAbsent(TopicConfig.of("made-while-down", 3)).join();
        send(leader, 650, 200);
        leader.messaging().commitOffset("readers", TOPIC, 0, 777);

        final Node back = replicas.start(stopped.id());
        group.add(back);
        replicas.await(() -> back.node().snapshotInstalls() >= 1,
                "the restarted replica to install the leader's snapshot");
        replicas.await(() -> back.node().status().appliedLogEnd() == leader.node().status().appliedLogEnd(),
                "the restarted replica to catch up");
        assertSameLog(leader.node().store(), back.node().store());
        assertThat(back.messaging().route("made-while-down")).map(TopicConfig::queueCount).contains(3);

        // It then follows the log normally.
        send(leader, 850, 20);
        replicas.await(() -> back.messaging().maxOffset(TOPIC, 0) == 870, "the replica to apply new sends");
        assertSameLog(leader.node().store(), back.node().store());

        // Make it lead (stop whoever else leads until it is elected): a consumer of it reads every message once.
        final Node newLeader = leadWith(back, group);
        assertThat(newLeader).isSameAs(back);
        assertThat(back.messaging().queryOffset("readers", TOPIC, 0)).isEqualTo(777);
        final List<StoredMessage> served = back.readAll(TOPIC, 870);
        assertThat(served).extracting(TestStores::body).containsExactlyElementsOf(bodies(0, 870));
        assertThat(served).extracting(StoredMessage::queueOffset)
                .containsExactlyElementsOf(IntStream.range(0, 870).mapToObj(i -> (long) i).toList());
        assertThat(back.messaging().send(TestStores.text(TOPIC, "after")).join().queueOffset()).isEqualTo(870);
    }

    @Test
    void shouldCatchUpAMemberWhoseDataDirectoryWasWiped() throws IOException {
        final List<Node> group = replicas.startAll();
        final Node leader = replicas.awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        send(leader, 0, 600);
        final Node lost = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        replicas.stop(lost, group);
        replicas.wipe(lost.id());
        send(leader, 600, 100);

        final Node fresh = replicas.start(lost.id());
        group.add(fresh);
        replicas.await(() -> fresh.node().snapshotInstalls() >= 1,
                "the empty replica to install the leader's snapshot");
        replicas.await(() -> fresh.node().status().appliedLogEnd() == leader.node().status().appliedLogEnd(),
                "the empty replica to catch up");
        assertSameLog(leader.node().store(), fresh.node().store());
        assertThat(fresh.readAll(TOPIC, 700)).extracting(TestStores::body).containsExactlyElementsOf(bodies(0, 700));
    }

    @Test
    void shouldFetchWhatALogShorterThanItsSnapshotLacksBeforeApplyingMore() throws IOException {
        final List<Node> group = replicas.startAll();
        final Node leader = replicas.awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        send(leader, 0, 600);
        final Node damaged = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        replicas.await(() -> damaged.node().status().appliedLogEnd() == leader.node().status().appliedLogEnd(),
                "the follower to apply everything");
        replicas.stop(damaged, group);
        loseNewestSegments(damaged.id());

        final Node back = replicas.start(damaged.id());
        group.add(back);
        send(leader, 600, 10);
        replicas.await(() -> back.node().status().appliedLogEnd() == leader.node().status().appliedLogEnd(),
                "the short replica to fetch what it lacks and apply the new sends");
        assertSameLog(leader.node().store(), back.node().store());
        assertThat(back.readAll(TOPIC, 610)).extracting(TestStores::body).containsExactlyElementsOf(bodies(0, 610));
    }

    @Test
    void shouldNotLeadWhileItsLogIsShorterThanItsSnapshotAndLeadOnceItFetchedTheRest() throws IOException {
        final List<Node> group = replicas.startAll();
        final Node leader = replicas.awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        send(leader, 0, 600);
        final Node damaged = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        final Node third = group.stream().filter(n -> n != leader && n != damaged).findFirst().orElseThrow();
        replicas.await(() -> damaged.node().status().appliedLogEnd() == leader.node().status().appliedLogEnd(),
                "the follower to apply everything");
        // Followers first, the leader last: the leader's Raft log is then at least as long as the others' (a leader
        // stopping with running followers would hand its leadership, and a longer log, to one of them).
        replicas.stop(damaged, group);
        replicas.stop(third, group);
        replicas.stop(leader, group);
        loseNewestSegments(damaged.id());

        // The damaged replica would win the next election (its election timeout is a tenth of the other's), were it
        // to stand: its Raft log is as long as anyone's. It must not lead a log with a hole; the other one leads.
        final Node back = replicas.start(damaged.id(), Duration.ofMillis(300));
        final Node complete = replicas.start(leader.id(), Duration.ofMillis(3000));
        group.addAll(List.of(back, complete));
        assertThat(replicas.awaitLeader(group)).isSameAs(complete);
        assertThat(back.node().roleChanges()).as("times the short replica reopened as leader").isZero();
        assertThat(back.node().acceptsWrites()).isFalse();

        // Without any send (it makes an entry itself): it fetches what it lacks; then it may lead again, and leads with
        // everything. (Once complete, its far shorter timeout may win it the leadership at any moment: nothing is sent
        // until the leadership has settled on it.)
        replicas.await(() -> back.node().status().appliedLogEnd() == complete.node().status().appliedLogEnd(),
                "the short replica to fetch what it lacks with no send to the group");
        assertSameLog(complete.node().store(), back.node().store());
        replicas.stop(complete, group);
        final Node last = replicas.start(third.id(), Duration.ofMillis(3000));
        group.add(last);
        assertThat(replicas.awaitLeader(group)).isSameAs(back);
        send(back, 600, 10);
        replicas.await(() -> last.node().status().appliedLogEnd() == back.node().status().appliedLogEnd(),
                "the other replica to apply the new sends");
        assertSameLog(back.node().store(), last.node().store());
        assertThat(back.readAll(TOPIC, 610)).extracting(TestStores::body).containsExactlyElementsOf(bodies(0, 610));
        assertThat(back.messaging().send(TestStores.text(TOPIC, "after")).join().queueOffset()).isEqualTo(610);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /**
     * Deletes a stopped replica's two newest commit-log segments (as when a crash cuts a snapshot installation short):
     * its log then ends before the offset its last snapshot recorded.
     */
    private void loseNewestSegments(final String id) throws IOException {
        final List<Path> segments;
        try (Stream<Path> files = Files.list(replicas.dataDir(id).resolve("commitlog"))) {
            segments = files.sorted().toList();
        }
        assertThat(segments).hasSizeGreaterThan(2);
        Files.delete(segments.get(segments.size() - 1));
        Files.delete(segments.get(segments.size() - 2));
    }

    /** Stops whoever else leads until {@code wanted} is elected (a stopped node restarts and catches up first). */
    private Node leadWith(final Node wanted, final List<Node> group) {
        for (int attempt = 0; attempt < 8; attempt++) {
            final Node leader = replicas.awaitLeader(group);
            if (leader == wanted) {
                return leader;
            }
            final long end = leader.node().status().appliedLogEnd();
            replicas.await(() -> wanted.node().status().appliedLogEnd() >= end, "the wanted node to apply the log");
            replicas.stop(leader, group);
            final Node now = replicas.awaitLeader(group);
            if (now == wanted) {
                return now;
            }
            final Node restarted = replicas.start(leader.id());
            group.add(restarted);
            replicas.await(() -> restarted.node().status().appliedLogEnd() >= now.node().status().appliedLogEnd(),
                    "the restarted node to catch up");
        }
        throw new AssertionError(wanted.id() + " was never elected");
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
}
