package io.junction.cluster;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/** Waiting on in-JVM replicas: a condition polled with a deadline, and the one leader among some nodes. */
final class ReplicaAwaits {

    private ReplicaAwaits() {
    }

    /** Polls {@code condition} every 20 ms until it holds; fails naming {@code what} after {@code deadline}. */
    static void await(final BooleanSupplier condition, final String what, final Duration deadline) {
        final long end = System.nanoTime() + deadline.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** The one node among {@code among} that accepts writes, once there is exactly one. */
    static <N> N awaitLeader(final List<N> among, final Function<N, ClusterNode> node, final Function<N, String> id,
                             final Duration deadline) {
        final Object[] found = new Object[1];
        await(() -> {
            final List<N> leaders = among.stream().filter(n -> node.apply(n).acceptsWrites()).toList();
            if (leaders.size() == 1) {
                found[0] = leaders.get(0);
                return true;
            }
            return false;
        }, "one leader accepting writes among " + among.stream().map(id).toList(), deadline);
        @SuppressWarnings("unchecked")
        final N leader = (N) found[0];
        return leader;
    }
}
