package io.junction.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.TestStores;
import io.junction.core.message.Message;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A queue sealed in a replicated store group (three replicas on Ratis) stays sealed where the group goes: the seal is
 * answered once a majority has its record, and the leader elected after the sealing leader stops refuses the queue's
 * writes and answers the same end.
 */
class ReplicatedSealTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String TOPIC = "sealed";

    @TempDir
    Path dir;

    private final Map<String, Integer> contractPorts = new HashMap<>();
    private final List<Node> nodes = new ArrayList<>();

    private record Node(String id, ReplicaMessaging messaging, ClusterNode node) {
    }

    @AfterEach
    void stopAll() {
        nodes.forEach(n -> n.node().close());
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
        // 1.5 s as in StoreGroupTest: 600 ms let a replica that missed two heartbeats on a loaded machine depose a
        // healthy leader.
        final ClusterSettings settings = new ClusterSettings(id, members, Duration.ofMillis(1500), dir.resolve(id),
                contractPorts.get(id));
        final ReplicaMessaging messaging = new ReplicaMessaging();
        final ClusterNode node = ClusterNode.start(settings, TestStores.small(dir.resolve(id)).build(),
                messaging::switchTo);
        final Node n = new Node(id, messaging, node);
        nodes.add(n);
        return n;
    }

    @Test
    void shouldKeepASealThroughALeaderChange() throws IOException {
        final List<ClusterMember> members = members();
        final List<Node> group = new ArrayList<>(List.of(start("n1", members), start("n2", members),
                start("n3", members)));
        final Node leader = awaitLeader(group);
        leader.messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 2)).join();
        for (int i = 0; i < 30; i++) {
            leader.messaging().send(message(0, "m" + i)).join();
        }
        assertThat(leader.messaging().topics().sealQueue(TOPIC, 0).join()).isEqualTo(30L);
        assertThat(errorOf(leader.messaging().send(message(0, "late")))).isEqualTo(StoreError.QUEUE_SEALED);
        for (Node n : group) {
            if (n != leader) {
                assertThat(errorOf(n.messaging().topics().sealQueue(TOPIC, 0))).as("a follower's store seals nothing")
                        .isEqualTo(StoreError.UNAVAILABLE);
            }
        }

        leader.node().close();
        group.remove(leader);
        nodes.remove(leader);
        final Node next = awaitLeader(group);
        await(() -> next.messaging().route(TOPIC).isPresent(), "the topic on the new leader");
        assertThat(errorOf(next.messaging().send(message(0, "after failover")))).isEqualTo(StoreError.QUEUE_SEALED);
        assertThat(next.messaging().topics().sealQueue(TOPIC, 0).join()).as("the same end").isEqualTo(30L);
        assertThat(next.messaging().send(message(1, "other queue")).join().queueOffset()).isZero();
        await(() -> next.messaging().maxOffset(TOPIC, 0) == 30, "queue 0 to end at the seal");
    }

    private static Message message(final int queue, final String body) {
        return Message.builder(TOPIC).queueId(queue).body(body.getBytes(StandardCharsets.UTF_8)).build();
    }

    private static StoreError errorOf(final CompletableFuture<?> future) {
        try {
            future.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause() instanceof StoreException s ? s.error() : null;
        }
    }

    private static Node awaitLeader(final List<Node> among) {
        return ReplicaAwaits.awaitLeader(among, Node::node, Node::id, WAIT);
    }

    private static void await(final BooleanSupplier condition, final String what) {
        ReplicaAwaits.await(condition, what, WAIT);
    }
}
