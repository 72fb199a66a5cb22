package io.junction.conformance.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.ClusterLaunch;
import io.junction.conformance.support.RemotingClientShutdown;
import io.junction.conformance.support.RunningBroker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.time.Duration;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Three broker processes (small heaps, own ports and data directories) form one store group. A RocketMQ producer sends
 * with acknowledgements to the leader, another to a follower (which forwards to the leader); the leader is SIGKILLed; the two survivors elect a leader, which serves every
 * acknowledged message to a RocketMQ consumer and takes new sends; the killed node restarts, rejoins as a follower
 * and catches up with the group's log. A RocketMQ 5 gRPC producer given only the leader's address keeps sending
 * after the kill: the route lists every node's gRPC address and the client fails over between them. A Remoting
 * transactional producer that knows only a follower leaves its transaction unknown: the leader's check-back reaches
 * it through the follower, it answers COMMIT, and the message is delivered once. Across the kill: a delayed message
 * sent before it and due after it fires once; of two half messages left unknown at the kill, the one the producer
 * commits when the new leader checks back is delivered once, the one it rolls back never. Before the kill the leader's
 * {@code /metrics} shows every member at replication lag 0 and a commit latency for every send; after the killed node
 * rejoins, the new leader shows it at lag 0 too.
 */
@Tag("cluster")
class ClusterFailoverIT {
    private static final String TOPIC = "failover";
    private static final int SENDS = 300;
    private static final int FOLLOWER_SENDS = 50;
    private static final Pattern CONTRACT = Pattern.compile("\"contract\":\"[^\"]+\"");
    private static final Pattern NUMBER = Pattern.compile("\"%s\":(-?\\d+)");
    private static final int GRPC_SENDS_AFTER_KILL = 10;
    private static final String COMMIT_AFTER_KILL = "txn-commit-after-kill";
    private static final String ROLLBACK_AFTER_KILL = "txn-rollback-after-kill";
    private static final String DELAYED = "delayed-across-kill";
    /** When the delayed message is due after its send: past the kill, within the failover's usual few seconds. */
    private static final long DELAY_MS = 6000;
    private static final Pattern LAG_ZERO = Pattern.compile(
            "(?m)^junction_cluster_member_lag_entries\\{member=\"n\\d\"} 0\\.0$");

    static {
        // keep the gRPC client's own log files out of the user's home
        System.setProperty("rocketmq.log.root", System.getProperty("java.io.tmpdir") + "/junction-grpc-client-logs");
    }

    private final List<RunningBroker> nodes = new ArrayList<>();

    @AfterEach
    void stopAll() {
        nodes.forEach(RunningBroker::close);
    }

    @Test
    void shouldKeepEveryAcknowledgedMessageWhenTheLeaderIsKilled() throws Exception {
        final List<RunningBroker.Builder> builders = ClusterLaunch.replicaGroup(3, 1000);
        // The transactional producer's half messages are checked back within the test's waits.
        builders.forEach(b -> b.set("store.transaction-first-check-ms", "1000")
                .set("store.transaction-check-interval-ms", "1000")
                .jvmArgs("-Xmx256m"));
        ClusterLaunch.startTogether(builders, nodes);
        final RunningBroker leader = awaitLeader(nodes);
        final List<String> acked = send(leader, "before-", SENDS);
        assertThat(acked).hasSize(SENDS);

        // A producer that knows only a follower: its sends are forwarded to the leader and acknowledged, once every
        // member has published its contract server.
        final RunningBroker follower = nodes.stream().filter(n -> n != leader).findFirst().orElseThrow();
        awaitTrue(() -> CONTRACT.matcher(follower.get("/cluster").body()).results().count() == 3,
                "every member's contract address to reach the follower");
        final List<String> forwarded = send(follower, "via-follower-", FOLLOWER_SENDS);
        assertThat(forwarded).hasSize(FOLLOWER_SENDS);
        assertThat(follower.get("/cluster").body()).contains("\"acceptsWrites\":false");

        // A transactional producer that knows only the follower, and never ends its transaction by itself: the
        // leader's check-back reaches it through the follower, it answers COMMIT, and the message is delivered.
        final AtomicInteger checks = new AtomicInteger();
        final AfterKill afterKill = new AfterKill();
        final TransactionMQProducer txn = transactionalProducer(follower, checks, afterKill);
        final List<String> committed = new ArrayList<>();
        try {
            final TransactionSendResult half = txn.sendMessageInTransaction(new Message(TOPIC,
                    "txn-via-follower".getBytes(StandardCharsets.UTF_8)), null);
            assertThat(half.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            assertThat(half.getLocalTransactionState()).isEqualTo(LocalTransactionState.UNKNOW);
            awaitTrue(() -> checks.get() > 0, "the leader's check-back to reach the follower's producer");
            committed.add("txn-via-follower");

            // A gRPC producer that was given the leader only: its route (taken once every node published its gRPC
            // address) lists all three nodes.
            for (int i = 0; i < nodes.size(); i++) {
                final RunningBroker n = nodes.get(i);
                final String published = "published n" + (i + 1) + "/grpc";
                awaitTrue(() -> n.process().stdout().contains(published),
                        "node n" + (i + 1) + " to publish its gRPC address");
            }
            final Producer grpc = ClientServiceProvider.loadService().newProducerBuilder()
                    .setClientConfiguration(ClientConfiguration.newBuilder().setEndpoints(leader.grpcEndpoint())
                            .enableSsl(false).setRequestTimeout(Duration.ofSeconds(3)).build())
                    .setTopics(TOPIC).build();
            final List<String> grpcAcked = new ArrayList<>(sendGrpc(grpc, "grpc-before-", 0, 5, 5));
            assertThat(grpcAcked).hasSize(5);

            // The replication metrics of the leader, before it dies: every member at lag 0 once the followers wrote
            // everything, and one commit latency per send at least (each sync send was its own appender batch).
            awaitTrue(() -> LAG_ZERO.matcher(leader.get("/metrics").body()).results().count() == 3,
                    "the leader to show every member at replication lag 0");
            assertThat(metric(leader.get("/metrics").body(), "junction_cluster_commit_latency_seconds_count"))
                    .isGreaterThanOrEqualTo(SENDS + FOLLOWER_SENDS);
            assertThat(metric(leader.get("/metrics").body(), "junction_cluster_commit_latency_seconds_sum"))
                    .isPositive();

            // Across the kill: two half messages left unknown, resolved by check-backs only after the kill (one
            // COMMIT, one ROLLBACK), and a delayed message due a few seconds after the kill.
            for (String body : List.of(COMMIT_AFTER_KILL, ROLLBACK_AFTER_KILL)) {
                final TransactionSendResult pending = txn.sendMessageInTransaction(new Message(TOPIC,
                        body.getBytes(StandardCharsets.UTF_8)), null);
                assertThat(pending.getLocalTransactionState()).isEqualTo(LocalTransactionState.UNKNOW);
            }
            final long fireAt = System.currentTimeMillis() + DELAY_MS;
            assertThat(sendDelayed(leader, DELAYED, fireAt)).isEqualTo(SendStatus.SEND_OK);

            final long killedAt = System.nanoTime();
            final long killedAtMs = System.currentTimeMillis();
            leader.kill();
            // Only now: an answer the dying leader got could have resolved them before the kill.
            afterKill.killed = true;
            assertThat(killedAtMs).as("the delayed message is due after the kill").isLessThan(fireAt);
            final List<RunningBroker> survivors = nodes.stream().filter(n -> n != leader).toList();
            final RunningBroker next = awaitLeader(survivors);
            final List<String> after = send(next, "after-", 10);
            System.out.printf("ClusterFailoverIT: failover (kill to first acknowledged send on the new leader) %d ms%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt));
            assertThat(after).hasSize(10);
            // The same gRPC producer object: its channel moves to a surviving node (sends during the election may
            // fail).
            final List<String> grpcAfter = sendGrpc(grpc, "grpc-after-", 0, 200, GRPC_SENDS_AFTER_KILL);
            grpc.close();
            System.out.printf("ClusterFailoverIT: the gRPC producer given only the killed node sent %d messages after "
                    + "the kill%n", grpcAfter.size());
            assertThat(grpcAfter).as("sends acknowledged after the kill to a producer given only the killed node")
                    .hasSize(GRPC_SENDS_AFTER_KILL);
            grpcAcked.addAll(grpcAfter);
            assertThat(next.get("/metrics").body()).contains("junction_cluster_accepts_writes 1.0",
                    "junction_cluster_role_changes_total", "junction_cluster_term");

            awaitTrue(() -> afterKill.committed && afterKill.rolledBack,
                    "the new leader's check-backs to resolve both transactions left unknown at the kill");
            committed.add(COMMIT_AFTER_KILL);

            final Set<String> expected = new HashSet<>(acked);
            expected.addAll(forwarded);
            expected.addAll(after);
            expected.addAll(grpcAcked);
            expected.addAll(committed);
            expected.add(DELAYED);
            final List<MessageExt> consumed = consumeAll(next, expected.size());
            final List<String> bodies = consumed.stream().map(m -> new String(m.getBody(), StandardCharsets.UTF_8))
                    .toList();
            assertThat(new HashSet<>(bodies)).containsAll(expected);
            assertThat(bodies.stream().filter(b -> b.startsWith("via-follower-")).toList())
                    .as("each forwarded send stored once").hasSize(FOLLOWER_SENDS);
            assertThat(bodies.stream().filter(b -> b.equals("txn-via-follower")).toList())
                    .as("the transaction committed through the follower's check-back, delivered once").hasSize(1);
            assertThat(bodies.stream().filter(COMMIT_AFTER_KILL::equals).toList())
                    .as("the transaction committed by a check-back after the kill, delivered once").hasSize(1);
            assertThat(bodies).as("the transaction rolled back after the kill, never delivered")
                    .doesNotContain(ROLLBACK_AFTER_KILL);
            assertThat(bodies.stream().filter(DELAYED::equals).toList())
                    .as("the delayed message due after the kill, fired once").hasSize(1);
            final MessageExt delayed = consumed.stream()
                    .filter(m -> DELAYED.equals(new String(m.getBody(), StandardCharsets.UTF_8))).findFirst()
                    .orElseThrow();
            assertThat(delayed.getStoreTimestamp()).as("not fired before it was due").isGreaterThanOrEqualTo(fireAt);
            assertThat(consumed.stream().map(m -> m.getQueueId() + "/" + m.getQueueOffset()).distinct().count())
                    .as("no two messages share a queue offset").isEqualTo(consumed.size());

            // The killed node comes back (new client ports, same Raft address and data) and catches up as a follower.
            leader.startOnNewPorts();
            final long leaderApplied = number(next.get("/cluster").body(), "appliedLogEnd");
            awaitTrue(() -> {
                final String status = leader.get("/cluster").body();
                return number(status, "appliedLogEnd") >= leaderApplied && status.contains("\"acceptsWrites\":false");
            }, "the restarted node to catch up as a follower");
            assertThat(leader.get("/health").body()).contains("\"acceptsWrites\":false");
            // The new leader shows the restarted member's lag falling to 0 with the others'.
            awaitTrue(() -> LAG_ZERO.matcher(next.get("/metrics").body()).results().count() == 3,
                    "the new leader to show every member, the restarted one too, at replication lag 0");
            // Entries the group writes on its own (offsets, checkpoints) may land between two reads: wait, not assert.
            awaitTrue(() -> next.get("/cluster").body().contains("\"lagEntries\":0"),
                    "GET /cluster on the new leader to show a member at lag 0");
        } finally {
            // Here and after each one-off client below: the test need not wait for the client's idle last step.
            RemotingClientShutdown.inBackground(txn::shutdown);
        }
    }

    /** What the transactional producer answers for the half messages sent just before the kill, once it happened. */
    private static final class AfterKill {
        volatile boolean killed;
        volatile boolean committed;
        volatile boolean rolledBack;

        LocalTransactionState answer(final String body) {
            if (!killed) {
                return LocalTransactionState.UNKNOW;
            }
            if (COMMIT_AFTER_KILL.equals(body)) {
                committed = true;
                return LocalTransactionState.COMMIT_MESSAGE;
            }
            rolledBack = true;
            return LocalTransactionState.ROLLBACK_MESSAGE;
        }
    }

    /**
     * A Remoting transactional producer of {@code node} whose transactions stay unknown until checked back: it commits
     * the one sent through the follower at once, and resolves the two sent before the kill only after it.
     */
    private static TransactionMQProducer transactionalProducer(final RunningBroker node, final AtomicInteger checks,
                                                               final AfterKill afterKill) throws Exception {
        final TransactionMQProducer producer = new TransactionMQProducer("failover-txn");
        producer.setNamesrvAddr(node.nameServer());
        producer.setInstanceName("failover-txn-" + System.nanoTime());
        producer.setSendMsgTimeout(5000);
        producer.setTransactionListener(new TransactionListener() {
            @Override
            public LocalTransactionState executeLocalTransaction(final Message msg, final Object arg) {
                return LocalTransactionState.UNKNOW;
            }

            @Override
            public LocalTransactionState checkLocalTransaction(final MessageExt msg) {
                final String body = new String(msg.getBody(), StandardCharsets.UTF_8);
                if (COMMIT_AFTER_KILL.equals(body) || ROLLBACK_AFTER_KILL.equals(body)) {
                    return afterKill.answer(body);
                }
                checks.incrementAndGet();
                return LocalTransactionState.COMMIT_MESSAGE;
            }
        });
        producer.start();
        return producer;
    }

    /** Sends one message due at {@code fireAt} (the 5.x deliver-time property) to {@code node}. */
    private static SendStatus sendDelayed(final RunningBroker node, final String body, final long fireAt)
            throws Exception {
        final DefaultMQProducer producer = new DefaultMQProducer("failover-delayed");
        producer.setNamesrvAddr(node.nameServer());
        producer.setInstanceName("failover-delayed-" + System.nanoTime());
        producer.setSendMsgTimeout(5000);
        producer.start();
        try {
            final Message message = new Message(TOPIC, body.getBytes(StandardCharsets.UTF_8));
            message.setDeliverTimeMs(fireAt);
            return producer.send(message).getSendStatus();
        } finally {
            RemotingClientShutdown.inBackground(producer::shutdown);
        }
    }

    /** The value of an unlabelled series in a Prometheus text page, -1 when it is missing. */
    private static double metric(final String page, final String series) {
        final Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(page);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    private static List<String> send(final RunningBroker node, final String prefix, final int count)
            throws Exception {
        final DefaultMQProducer producer = new DefaultMQProducer("failover-producer");
        producer.setNamesrvAddr(node.nameServer());
        producer.setInstanceName("failover-" + prefix + System.nanoTime());
        producer.setSendMsgTimeout(5000);
        producer.start();
        final List<String> acked = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                final String body = prefix + i;
                final SendResult r = producer.send(new Message(TOPIC, body.getBytes(StandardCharsets.UTF_8)));
                if (r.getSendStatus() == SendStatus.SEND_OK) {
                    acked.add(body);
                }
            }
        } finally {
            RemotingClientShutdown.inBackground(producer::shutdown);
        }
        return acked;
    }

    /**
     * Sends from a gRPC producer until {@code wanted} are acknowledged or {@code attempts} sends were made; a failed
     * send (an election, a dead node) is not retried with the same body.
     */
    private static List<String> sendGrpc(final Producer producer, final String prefix, final int from,
                                         final int attempts, final int wanted) {
        final List<String> acked = new ArrayList<>();
        final ClientServiceProvider provider = ClientServiceProvider.loadService();
        for (int i = from; i < from + attempts && acked.size() < wanted; i++) {
            final String body = prefix + i;
            try {
                producer.send(provider.newMessageBuilder().setTopic(TOPIC)
                        .setBody(body.getBytes(StandardCharsets.UTF_8)).build());
                acked.add(body);
            } catch (final ClientException | RuntimeException e) {
                // Not acknowledged: the client's own retries ran out during the failover (the SDK also lets a
                // transport UNAVAILABLE through unwrapped, as a gRPC StatusRuntimeException); try the next one.
            }
        }
        return acked;
    }

    private static List<MessageExt> consumeAll(final RunningBroker node, final int expected) throws Exception {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("failover-consumer");
        consumer.setNamesrvAddr(node.nameServer());
        consumer.setInstanceName("failover-consumer");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(TOPIC, "*");
        consumer.start();
        final List<MessageExt> got = new ArrayList<>();
        try {
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (got.size() < expected && System.nanoTime() < end) {
                got.addAll(consumer.poll(500));
            }
        } finally {
            RemotingClientShutdown.inBackground(consumer::shutdown);
        }
        return got;
    }

    private static RunningBroker awaitLeader(final List<RunningBroker> among) {
        final RunningBroker[] found = new RunningBroker[1];
        awaitTrue(() -> {
            final List<RunningBroker> leaders = among.stream().filter(ClusterFailoverIT::acceptsWrites).toList();
            if (leaders.size() == 1) {
                found[0] = leaders.get(0);
                return true;
            }
            return false;
        }, "one node to lead and accept writes");
        return found[0];
    }

    private static boolean acceptsWrites(final RunningBroker node) {
        try {
            return node.get("/cluster").body().contains("\"acceptsWrites\":true");
        } catch (RuntimeException e) {
            return false; // killed, or not answering yet
        }
    }

    private static long number(final String json, final String field) {
        final Matcher m = Pattern.compile(String.format(NUMBER.pattern(), field)).matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private static void awaitTrue(final Check check, final String what) {
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < end) {
            try {
                if (check.holds()) {
                    return;
                }
            } catch (RuntimeException e) {
                // A node not answering yet (starting, or just killed): ask again.
            }
            try {
                TimeUnit.MILLISECONDS.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("timed out waiting for " + what);
    }

    @FunctionalInterface
    private interface Check {
        boolean holds();
    }
}
