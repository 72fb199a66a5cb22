package io.junction.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.cluster.InJvmReplicaGroup.Node;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.Message;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A queue sealed in a replicated store group (three replicas on Ratis) stays sealed where the group goes: the seal is
 * answered once a majority has its record, and the leader elected after the sealing leader stops refuses the queue's
 * writes and answers the same end.
 */
class ReplicatedSealTest {
    private static final String TOPIC = "sealed";

    @RegisterExtension
    final InJvmReplicaGroup replicas = InJvmReplicaGroup.builder().build();

    @Test
    void shouldKeepASealThroughALeaderChange() {
        final List<Node> group = replicas.startAll();
        final Node leader = replicas.awaitLeader(group);
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

        replicas.stop(leader, group);
        final Node next = replicas.awaitLeader(group);
        replicas.await(() -> next.messaging().route(TOPIC).isPresent(), "the topic on the new leader");
        assertThat(errorOf(next.messaging().send(message(0, "after failover")))).isEqualTo(StoreError.QUEUE_SEALED);
        assertThat(next.messaging().topics().sealQueue(TOPIC, 0).join()).as("the same end").isEqualTo(30L);
        assertThat(next.messaging().send(message(1, "other queue")).join().queueOffset()).isZero();
        replicas.await(() -> next.messaging().maxOffset(TOPIC, 0) == 30, "queue 0 to end at the seal");
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
}
