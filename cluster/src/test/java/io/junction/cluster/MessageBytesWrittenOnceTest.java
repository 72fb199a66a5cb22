package io.junction.cluster;

import static io.junction.cluster.ReplicaLogs.assertSameLog;
import static io.junction.cluster.ReplicaLogs.raftLogContentBytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.junction.cluster.InJvmReplicaGroup.Node;
import io.junction.core.PullRequest;
import io.junction.core.SendResult;
import io.junction.core.engine.TestStores;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

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

    @RegisterExtension
    final InJvmReplicaGroup replicas = InJvmReplicaGroup.builder().raftLog(UNPURGED).waitAtMost(WAIT).build();

    @Test
    void shouldKeepMessageBytesOutOfTheRaftLogAndInEveryCommitLog() throws IOException {
        final List<Node> group = replicas.startAll();
        final Node leader = replicas.awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        // Each send is one entry: what an entry costs the Raft log against its 4 KiB shows at any count (a copy of
        // each message's bytes in the Raft log would put it at ten times the bound, however many were sent).
        final int count = 100;
        send(leader, 0, count, "m");

        final long logEnd = leader.node().status().appliedLogEnd();
        for (Node n : group) {
            replicas.await(() -> n.node().status().appliedLogEnd() == logEnd, n.id() + " to apply everything");
        }
        final long messageBytes = (long) count * BODY_BYTES;
        for (Node n : group) {
            final long raftBytes = raftLogContentBytes(replicas.dataDir(n.id()).resolve("cluster").resolve("raft"));
            assertThat(raftBytes).as("Raft log entry bytes of %s for %d bytes of messages", n.id(), messageBytes)
                    .isPositive()
                    .isLessThan(messageBytes / 10);
            assertSameLog(leader.node().store(), n.node().store());
            assertThat(n.readAll(TOPIC, count)).extracting(TestStores::body)
                    .containsExactlyElementsOf(bodies("m", 0, count));
        }
    }

    @Test
    void shouldCatchUpAFollowerThatWasDownFromTheLeadersCommitLog() throws IOException {
        final List<Node> group = replicas.startAll();
        final Node leader = replicas.awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        send(leader, 0, 20, "m");
        final Node stopped = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        replicas.stop(stopped, group);
        send(leader, 20, 200, "m");
        final long readsBefore = leader.node().stateMachineDataReads();

        final Node back = replicas.start(stopped.id());
        group.add(back);
        replicas.await(() -> back.node().status().appliedLogEnd() == leader.node().status().appliedLogEnd(),
                "the restarted follower to catch up");
        // From the Raft log (no snapshot was taken), its entries' bytes read back from the leader's commit log.
        assertThat(back.node().snapshotInstalls()).isZero();
        // (Ratis may still hold one request it built for the follower before it stopped, and send that again.)
        assertThat(leader.node().stateMachineDataReads() - readsBefore).as("ranges read back to send them again")
                .isGreaterThanOrEqualTo(190);
        assertSameLog(leader.node().store(), back.node().store());
        assertThat(back.readAll(TOPIC, 220)).extracting(TestStores::body)
                .containsExactlyElementsOf(bodies("m", 0, 220));
    }

    @Test
    void shouldCutALeadersUncommittedRangesOnceItRejoinsAndNeverShowThem() throws IOException {
        final List<Node> group = replicas.startAll();
        final Node old = replicas.awaitLeader(group);
        old.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        send(old, 0, 20, "m");
        final long committedEnd = old.node().status().appliedLogEnd();
        for (Node n : group) {
            replicas.await(() -> n.node().status().appliedLogEnd() == committedEnd, n.id() + " to apply everything");
        }
        final List<Node> followers = group.stream().filter(n -> n != old).toList();
        for (Node f : followers) {
            replicas.stop(f, group);
        }

        // Alone, the leader writes these to its log and its Raft log, but no majority ever commits them.
        final List<CompletableFuture<SendResult>> uncommitted = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            uncommitted.add(old.messaging().send(Message.builder(TOPIC).queueId(0).body(body("lost", i)).build()));
        }
        replicas.await(() -> old.node().store().logEnd() > committedEnd, "the leader to write the uncommitted sends");
        assertThat(old.messaging().maxOffset(TOPIC, 0)).as("consumers see nothing uncommitted").isEqualTo(20);
        assertThat(pull(old, 20)).isEmpty();
        final long uncommittedEnd = old.node().store().logEnd();
        replicas.stop(old, group);
        assertThat(uncommitted).noneMatch(f -> f.isDone() && !f.isCompletedExceptionally());

        // The others elect a leader and write other messages at the same log offsets.
        for (Node f : followers) {
            group.add(replicas.start(f.id()));
        }
        final Node successor = replicas.awaitLeader(group);
        send(successor, 20, 10, "m");
        assertThat(successor.node().store().logEnd()).isGreaterThan(committedEnd);

        // The old leader rejoins: Ratis replaces its uncommitted entries, and its log is the successor's, byte for byte.
        final Node rejoined = replicas.start(old.id());
        group.add(rejoined);
        replicas.await(() -> rejoined.node().status().appliedLogEnd() == successor.node().status().appliedLogEnd(),
                "the old leader to rejoin and catch up");
        send(successor, 30, 5, "m");
        for (Node n : group) {
            replicas.await(() -> n.node().status().appliedLogEnd() == successor.node().status().appliedLogEnd(),
                    n.id() + " to apply the new sends");
        }
        for (Node n : group) {
            assertThat(n.node().store().logEnd()).as("log end of %s (the old leader wrote up to %d)", n.id(),
                    uncommittedEnd).isEqualTo(successor.node().store().logEnd());
            assertSameLog(successor.node().store(), n.node().store());
            final List<StoredMessage> served = n.readAll(TOPIC, 35);
            assertThat(served).extracting(TestStores::body).containsExactlyElementsOf(bodies("m", 0, 35));
            assertThat(served).extracting(StoredMessage::queueOffset)
                    .containsExactlyElementsOf(IntStream.range(0, 35).mapToObj(i -> (long) i).toList());
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

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
}
