package io.junction.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.cluster.InJvmReplicaGroup.Node;
import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.StoreConfig;
import io.junction.core.filter.TagFilter;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.txn.TransactionEnd;
import io.junction.core.txn.TransactionResolution;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three replicas in one JVM, each with its contract server: a follower's {@link ReplicaMessaging} forwards sends, POP,
 * acks and offset commits to the leader, which stores and replicates them; after the leader stops, the follower
 * forwards to the new one.
 */
class FollowerForwardingTest {
    private static final String TOPIC = "orders";
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Duration ELECTION_TIMEOUT = Duration.ofMillis(2000);

    /** Elections only when a leader really stops: the machine's other work must not make one look gone. */
    @RegisterExtension
    final InJvmReplicaGroup replicas = InJvmReplicaGroup.builder().electionTimeout(ELECTION_TIMEOUT)
            .waitAtMost(DEADLINE).forwarding().build();

    /** Three replicas that all know the topic and every member's contract address: forwarding can start. */
    private List<Node> startGroupWithTopic() {
        return startGroupWithTopic(UnaryOperator.identity());
    }

    private List<Node> startGroupWithTopic(final UnaryOperator<StoreConfig.Builder> storeChanges) {
        final List<Node> group = replicas.startAll(storeChanges);
        replicas.awaitLeader(group).messaging().topics().createIfAbsent(TopicConfig.of(TOPIC, 1)).join();
        for (Node n : group) {
            await().atMost(DEADLINE).until(() -> n.node().contractAddresses().size() == 3
                    && n.messaging().route(TOPIC).isPresent());
        }
        return group;
    }

    private static Message text(final String body) {
        return Message.builder(TOPIC).queueId(0).tag("t").body(body.getBytes(StandardCharsets.UTF_8)).build();
    }

    private static String body(final StoredMessage m) {
        return new String(m.bodyBytes(), StandardCharsets.UTF_8);
    }

    private static List<String> readAll(final Messaging reader, final int expected) {
        final List<String> all = new ArrayList<>();
        await().atMost(DEADLINE).until(() -> {
            all.clear();
            long offset = 0;
            while (true) {
                final PullResult r = reader.pull(new PullRequest("test", TOPIC, 0, offset, 32, null, 0)).join();
                if (r.messages().isEmpty()) {
                    break;
                }
                r.messages().forEach(m -> all.add(body(m)));
                offset = r.nextOffset();
            }
            return all.size() >= expected;
        });
        return all;
    }

    @Test
    void shouldForwardAFollowersWritesPopAndAcksToTheLeaderAndThenToTheNextLeader() throws Exception {
        final List<Node> group = startGroupWithTopic();
        final Node leader = replicas.awaitLeader(group);
        final Node follower = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        final Node other = group.stream().filter(n -> n != leader && n != follower).findFirst().orElseThrow();

        // Sends through the follower are acknowledged with the leader's offsets, and land on every replica.
        final List<SendResult> acked = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            acked.add(follower.messaging().send(text("m" + i)).get(20, TimeUnit.SECONDS));
        }
        assertThat(acked).extracting(SendResult::queueOffset)
                .containsExactlyElementsOf(IntStream.range(0, 20).mapToObj(i -> (long) i).toList());
        final List<String> expected = IntStream.range(0, 20).mapToObj(i -> "m" + i).toList();
        assertThat(readAll(leader.messaging(), 20)).containsExactlyElementsOf(expected);
        assertThat(readAll(other.messaging(), 20)).containsExactlyElementsOf(expected);
        assertThat(readAll(follower.messaging(), 20)).containsExactlyElementsOf(expected);

        // POP through the follower, acks through the follower: only the one left unacked comes back, on the leader.
        final PopResult popped = follower.messaging().pop(new PopRequest("workers", TOPIC, TagFilter.parse("t"), 32,
                2_000, 0)).get(20, TimeUnit.SECONDS);
        assertThat(popped.messages()).extracting(p -> body(p.message())).containsExactlyElementsOf(expected);
        final List<PoppedMessage> toAck = popped.messages().subList(0, 19);
        follower.messaging().ack("workers", toAck.get(0).receiptHandle()).get(20, TimeUnit.SECONDS);
        follower.messaging().ackReceipts("workers", toAck.subList(1, 19).stream().map(PoppedMessage::receipt)
                .toList()).get(20, TimeUnit.SECONDS);
        final List<String> redelivered = new ArrayList<>();
        await().atMost(DEADLINE).until(() -> {
            leader.messaging().pop(new PopRequest("workers", TOPIC, null, 32, 60_000, 1_000))
                    .get(20, TimeUnit.SECONDS).messages().forEach(p -> redelivered.add(body(p.message())));
            return !redelivered.isEmpty();
        });
        assertThat(redelivered).containsExactly("m19");

        // An offset committed through the follower reaches the leader.
        follower.messaging().commitOffset("readers", TOPIC, 0, 7);
        await().atMost(DEADLINE).until(() -> leader.messaging().queryOffset("readers", TOPIC, 0) == 7);
        assertThat(follower.messaging().queryOffset("readers", TOPIC, 0)).isEqualTo(7);

        // The leader stops: the followers elect another, and a follower forwards to it.
        replicas.stop(leader);
        final List<Node> survivors = List.of(follower, other);
        final Node next = replicas.awaitLeader(survivors);
        final Node stillFollowing = next == follower ? other : follower;
        final SendResult after = await().atMost(DEADLINE).ignoreException(StoreException.class)
                .until(() -> sendOrNull(stillFollowing), r -> r != null);
        assertThat(after.queueOffset()).isEqualTo(20);
        assertThat(readAll(next.messaging(), 21)).containsExactlyElementsOf(
                IntStream.rangeClosed(0, 20).mapToObj(i -> i < 20 ? "m" + i : "after-failover").toList());

        // The last node alone elects no leader: its forwarded calls fail with UNAVAILABLE, they do not hang.
        replicas.stop(next);
        final CompletableFuture<SendResult> stranded = stillFollowing.messaging().send(text("alone"));
        assertThat(stranded).failsWithin(DEADLINE).withThrowableOfType(ExecutionException.class)
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.UNAVAILABLE));
    }

    @Test
    void shouldRedeliverMessagesPoppedBeforeTheLeaderStoppedOnceTheirInvisibleTimePasses() throws Exception {
        final List<Node> group = startGroupWithTopic();
        final Node leader = replicas.awaitLeader(group);
        final Node follower = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        final List<String> expected = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            follower.messaging().send(text("p" + i)).get(20, TimeUnit.SECONDS);
            expected.add("p" + i);
        }
        // Popped through a follower, never acked; then the leader that recorded the pop stops.
        final PopResult popped = follower.messaging().pop(new PopRequest("pop-workers", TOPIC, null, 32, 3_000, 0))
                .get(20, TimeUnit.SECONDS);
        assertThat(popped.messages()).extracting(p -> body(p.message())).containsExactlyElementsOf(expected);
        replicas.stop(leader);
        final List<Node> survivors = group.stream().filter(n -> n != leader).toList();
        final Node next = replicas.awaitLeader(survivors);
        // Each comes back once its invisible time has passed, on the new leader.
        final List<String> redelivered = new ArrayList<>();
        await().atMost(DEADLINE).until(() -> {
            next.messaging().pop(new PopRequest("pop-workers", TOPIC, null, 32, 60_000, 1_000))
                    .get(20, TimeUnit.SECONDS).messages().forEach(p -> redelivered.add(body(p.message())));
            return redelivered.size() >= expected.size();
        });
        assertThat(redelivered).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void shouldKeepAHalfMessageUnresolvedAcrossALeaderChangeSoItsProducerCanStillCommitIt() throws Exception {
        final List<Node> group = startGroupWithTopic();
        final Node leader = replicas.awaitLeader(group);
        final Node follower = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        final SendResult half = follower.messaging().send(Message.builder(TOPIC).queueId(0).tag("t")
                .property(MessageProperties.TRANSACTION_PREPARED, "true")
                .property(MessageProperties.PRODUCER_GROUP, "pg")
                .body("half".getBytes(StandardCharsets.UTF_8)).build()).get(20, TimeUnit.SECONDS);
        // Longer than a checkpoint interval: a follower must not move the replay positions past it meanwhile.
        await().pollDelay(Duration.ofMillis(2_500)).atMost(DEADLINE).until(() -> true);
        replicas.stop(leader);
        final Node next = replicas.awaitLeader(group.stream().filter(n -> n != leader).toList());
        // The new leader still knows the half message: its producer's commit is accepted and delivers it.
        await().atMost(DEADLINE).ignoreException(StoreException.class).until(() -> {
            next.messaging().endTransaction(TransactionEnd.byOffset("pg", half.commitLogOffset(), half.uniqueId(),
                    TransactionResolution.COMMIT)).get(20, TimeUnit.SECONDS);
            return true;
        });
        assertThat(readAll(next.messaging(), 1)).containsExactly("half");
    }

    @Test
    void shouldCheckBackAHalfMessageWithAProducerConnectedOnlyToAFollower() throws Exception {
        final List<Node> group = startGroupWithTopic(store -> store.transactionFirstCheck(Duration.ofMillis(500)));
        final Node leader = replicas.awaitLeader(group);
        final Node follower = group.stream().filter(n -> n != leader).findFirst().orElseThrow();
        final Node other = group.stream().filter(n -> n != leader && n != follower).findFirst().orElseThrow();
        // The producer of "pg" is connected to the follower only (as a front-end registers it there); it never ends
        // its transaction by itself, and answers COMMIT when checked back. A producer of another group is on the
        // third node: it is asked too (each node's front-ends pick their own group's producers), and answers nothing.
        final List<String> asked = new CopyOnWriteArrayList<>();
        follower.messaging().addTransactionChecker((producerGroup, half, times) -> {
            asked.add(producerGroup + "#" + times + "@" + half.uniqueId());
            follower.messaging().endTransaction(TransactionEnd.byOffset(producerGroup, half.commitLogOffset(),
                    half.uniqueId(), TransactionResolution.COMMIT));
        });
        final List<String> askedElsewhere = new CopyOnWriteArrayList<>();
        other.messaging().addTransactionChecker((producerGroup, half, times) -> askedElsewhere.add(producerGroup));
        final SendResult half = follower.messaging().send(Message.builder(TOPIC).queueId(0).tag("t")
                .property(MessageProperties.TRANSACTION_PREPARED, "true")
                .property(MessageProperties.PRODUCER_GROUP, "pg")
                .body("checked-back".getBytes(StandardCharsets.UTF_8)).build()).get(20, TimeUnit.SECONDS);

        // Delivered once, on every replica, after exactly one check-back reached the follower's producer.
        for (Node n : group) {
            assertThat(readAll(n.messaging(), 1)).containsExactly("checked-back");
        }
        assertThat(asked).containsExactly("pg#1@" + half.uniqueId());
        assertThat(askedElsewhere).containsExactly("pg");
    }

    /** One forwarded send; null when it failed (no leader yet, or the old one's connection was lost). */
    private static SendResult sendOrNull(final Node via) {
        final CompletableFuture<SendResult> f = via.messaging().send(text("after-failover"));
        try {
            return f.get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            return null;
        }
    }
}
