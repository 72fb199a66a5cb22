package io.junction.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.cluster.InJvmReplicaGroup.Node;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.TestStores;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Three store replicas in one JVM, each a Ratis server on its own port: election, replication, failover. */
class StoreGroupTest {
    private static final String TOPIC = "orders";

    @RegisterExtension
    final InJvmReplicaGroup replicas = InJvmReplicaGroup.builder().build();

    @Test
    void shouldElectOneLeaderAndRefuseWritesOnFollowers() {
        final List<Node> group = replicas.startAll();
        final Node leader = replicas.awaitSettledLeader(group);
        final ClusterStatus status = leader.node().status();
        assertThat(status.role()).isEqualTo("LEADER");
        assertThat(status.term()).isPositive();
        assertThat(status.members()).extracting(ClusterStatus.Member::id).containsExactly("n1", "n2", "n3");
        assertThat(status.node()).isEqualTo(leader.id());
        assertThat(status.acceptsWrites()).isTrue();
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        for (Node n : group) {
            if (n != leader) {
                replicas.await(() -> n.messaging().route(TOPIC).isPresent(), "the topic to reach " + n.id());
                // These nodes forward nothing (ClusterNode.start without a ReplicaMessaging): a follower's own store
                // refuses sends. FollowerForwardingTest covers the forwarding the broker wires.
                assertThat(errorOf(n.messaging().send(TestStores.text(TOPIC, "x"))))
                        .isEqualTo(StoreError.UNAVAILABLE);
                // A follower forwards metadata changes to the leader, and reads its own change back at once.
                assertThat(n.messaging().topics().createIfAbsent(TopicConfig.of("from-" + n.id(), 1)).join().name())
                        .isEqualTo("from-" + n.id());
                assertThat(n.messaging().route("from-" + n.id())).isPresent();
                replicas.await(() -> leader.messaging().route("from-" + n.id()).isPresent(),
                        "the change to reach the leader");
                assertThat(n.node().status().acceptsWrites()).isFalse();
            }
        }
    }

    @Test
    void shouldServeEveryAcknowledgedMessageFromTheNewLeaderAfterTheLeaderStops() {
        final List<Node> group = replicas.startAll();
        final Node leader = replicas.awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        final int count = 300;
        final List<CompletableFuture<SendResult>> sends = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sends.add(leader.messaging().send(Message.builder(TOPIC).queueId(0)
                    .body(("m" + i).getBytes(StandardCharsets.UTF_8)).build()));
        }
        final List<SendResult> acked = sends.stream().map(CompletableFuture::join).toList();
        assertThat(acked).hasSize(count);

        // A consumer's committed offset reaches the followers (shipped about once a second).
        leader.messaging().commitOffset("readers", TOPIC, 0, 120);
        replicas.await(() -> group.stream().allMatch(n -> n.messaging().queryOffset("readers", TOPIC, 0) == 120),
                "the committed offset to reach every replica");

        replicas.stop(leader, group);
        final Node next = replicas.awaitLeader(group);
        // The topic reached the new leader as a replicated metadata change, not a local one.
        assertThat(next.messaging().route(TOPIC)).isPresent();
        assertThat(next.messaging().queryOffset("readers", TOPIC, 0)).isEqualTo(120);
        next.messaging().topics().createOrUpdate(TopicConfig.of("later", 2)).join();
        final Node other = group.stream().filter(n -> n != next).findFirst().orElseThrow();
        replicas.await(() -> other.messaging().route("later").map(TopicConfig::queueCount).orElse(0) == 2,
                "a topic created on the new leader to reach the follower");
        final List<StoredMessage> served = next.readAll(TOPIC, count);
        assertThat(served).extracting(TestStores::body)
                .containsExactlyElementsOf(IntStream.range(0, count).mapToObj(i -> "m" + i).toList());
        final Set<Long> offsets = served.stream().map(StoredMessage::queueOffset).collect(Collectors.toSet());
        assertThat(offsets).hasSize(count);

        // Two of three still make a majority: the new leader takes writes, continuing the queue.
        final SendResult after = next.messaging().send(Message.builder(TOPIC).queueId(0)
                .body("after".getBytes(StandardCharsets.UTF_8)).build()).join();
        assertThat(after.queueOffset()).isEqualTo(count);
        final Node follower = group.stream().filter(n -> n != next).findFirst().orElseThrow();
        replicas.await(() -> follower.messaging().maxOffset(TOPIC, 0) == count + 1,
                "the follower to apply the new send");
        assertThat(new HashSet<>(follower.readAll(TOPIC, count + 1).stream().map(TestStores::body).toList()))
                .contains("m0", "m" + (count - 1), "after");

        // The stopped node restarts on its data (its uncommitted tail, if any, cut; the rest replayed) and catches up.
        final Node back = replicas.start(leader.id());
        replicas.await(() -> back.node().status().appliedLogEnd() == next.node().status().appliedLogEnd()
                && back.messaging().maxOffset(TOPIC, 0) == count + 1, "the restarted node to catch up");
        assertThat(back.node().acceptsWrites()).isFalse();
        assertThat(back.readAll(TOPIC, count + 1)).extracting(TestStores::body).contains("m0", "after");
    }

    @Test
    void shouldShowEachMembersLagAndTheCommitLatencyOfEverySend() {
        final List<Node> group = replicas.startAll();
        final List<Long> latencies = new CopyOnWriteArrayList<>();
        group.forEach(n -> n.node().observeCommitLatency(latencies::add));
        final Node leader = replicas.awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        final int before = latencies.size();
        final int sends = 20;
        for (int i = 0; i < sends; i++) {
            // One at a time: each send is its own appender batch, so its own Raft entry.
            leader.messaging().send(TestStores.text(TOPIC, "m" + i)).join();
        }
        // Each acknowledged send was committed by a majority first: its entry's latency was recorded by then.
        assertThat(latencies.size() - before).isGreaterThanOrEqualTo(sends);
        assertThat(latencies).allSatisfy(nanos -> assertThat(nanos).isPositive());

        // Once the followers have written everything, the leader shows every member at lag 0; a follower knows none.
        replicas.await(() -> leader.node().status().members().stream().allMatch(m -> m.lagEntries() == 0),
                "every member to catch up with the leader's log");
        assertThat(leader.node().status().members()).extracting(ClusterStatus.Member::matchIndex)
                .allSatisfy(match -> assertThat(match).isPositive());
        for (Node n : group) {
            if (n != leader) {
                assertThat(n.node().status().members()).extracting(ClusterStatus.Member::lagEntries)
                        .containsOnly(-1L);
            }
        }
    }

    @Test
    void shouldNeverAcknowledgeASendTheGroupCannotCommit() {
        final List<Node> group = replicas.startAll();
        final Node leader = replicas.awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        assertThat(leader.messaging().send(TestStores.text(TOPIC, "committed")).join().queueOffset()).isZero();

        // The leader alone is no majority: the send fails (once the leader steps down), it is never acknowledged.
        for (Node n : List.copyOf(group)) {
            if (n != leader) {
                replicas.stop(n, group);
            }
        }
        final CompletableFuture<SendResult> stranded = leader.messaging().send(TestStores.text(TOPIC, "stranded"));
        replicas.await(stranded::isDone, "the stranded send to fail");
        assertThat(errorOf(stranded)).isEqualTo(StoreError.UNAVAILABLE);
        replicas.await(() -> !leader.node().acceptsWrites(), "the lone leader to stop taking writes");
        assertThat(errorOf(leader.messaging().send(TestStores.text(TOPIC, "later")))).isEqualTo(StoreError.UNAVAILABLE);
        assertThat(leader.node().status().acceptsWrites()).isFalse();
    }

    private static StoreError errorOf(final CompletableFuture<?> future) {
        try {
            future.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause() instanceof StoreException s ? s.error() : null;
        }
    }
}
