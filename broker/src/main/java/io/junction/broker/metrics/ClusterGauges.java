package io.junction.broker.metrics;

import io.junction.cluster.ClusterNode;
import io.junction.cluster.ClusterStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.ToDoubleFunction;

/** A cluster node's meters: whether it takes writes, its Raft term and indexes, and its role changes. */
public final class ClusterGauges {

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
    }

    private static void gauge(final MeterRegistry registry, final ClusterNode node, final String name,
                              final String description, final ToDoubleFunction<ClusterStatus> value) {
        Gauge.builder(name, node, n -> value.applyAsDouble(n.status()))
                .description(description)
                .strongReference(true)
                .register(registry);
    }
}
