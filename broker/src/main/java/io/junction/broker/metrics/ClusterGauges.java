package io.junction.broker.metrics;

import io.junction.cluster.ClusterMember;
import io.junction.cluster.ClusterNode;
import io.junction.cluster.ClusterStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * A cluster node's meters: whether it takes writes, its Raft term and indexes, its role changes, each member's
 * replication lag (as the leader sees it) and the commit latency of the message appends it proposes.
 */
public final class ClusterGauges {

    /**
     * Commit latency buckets: a majority commit costs at least one round trip and a follower's write (sub-millisecond
     * on one host), up to seconds while a follower is slow or an election is under way.
     */
    private static final Duration[] COMMIT_BUCKETS = {
        Duration.ofNanos(250_000), Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofNanos(2_500_000),
        Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
        Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofSeconds(5)};

    private ClusterGauges() {
    }

    /** Registers the cluster meters, reading the node's in-memory Raft state at scrape time. */
    public static void register(final MeterRegistry registry, final ClusterNode node) {
        gauge(registry, node, "junction.cluster.accepts.writes", "1 while this node leads its group and takes writes",
                s -> s.acceptsWrites() ? 1 : 0);
        gauge(registry, node, "junction.cluster.term", "Current Raft term (it grows with every election)",
                ClusterStatus::term);
        gauge(registry, node, "junction.cluster.commit.index", "Last Raft index this node knows committed",
                ClusterStatus::commitIndex);
        gauge(registry, node, "junction.cluster.applied.index", "Last Raft index applied to this node's store",
                ClusterStatus::appliedIndex);
        FunctionCounter.builder("junction.cluster.role.changes", node, ClusterNode::roleChanges)
                .description("Times this node's store reopened as leader or follower (its view of leader changes)")
                .register(registry);
        for (ClusterMember m : node.settings().members()) {
            final String id = m.id();
            Gauge.builder("junction.cluster.member.lag.entries", node, n -> lagOf(n.status(), id))
                    .description("Raft entries the leader's log holds past this member's match index (the leader "
                            + "exports it; NaN on a follower, which does not know)")
                    .tag("member", id)
                    .strongReference(true)
                    .register(registry);
        }
        final Timer commitLatency = Timer.builder("junction.cluster.commit.latency")
                .description("Time from this leader proposing a range of its commit log (one batch of sends) to its "
                        + "commit by a majority of the group")
                .serviceLevelObjectives(COMMIT_BUCKETS)
                .register(registry);
        node.observeCommitLatency(nanos -> commitLatency.record(nanos, TimeUnit.NANOSECONDS));
    }

    private static double lagOf(final ClusterStatus status, final String member) {
        for (ClusterStatus.Member m : status.members()) {
            if (m.id().equals(member)) {
                return m.lagEntries() < 0 ? Double.NaN : m.lagEntries();
            }
        }
        return Double.NaN;
    }

    private static void gauge(final MeterRegistry registry, final ClusterNode node, final String name,
                              final String description, final ToDoubleFunction<ClusterStatus> value) {
        Gauge.builder(name, node, n -> value.applyAsDouble(n.status()))
                .description(description)
                .strongReference(true)
                .register(registry);
    }
}
