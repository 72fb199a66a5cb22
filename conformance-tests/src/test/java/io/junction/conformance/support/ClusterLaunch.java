package io.junction.conformance.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Starting the broker processes of a cluster test: the member list, and every process at once. */
public final class ClusterLaunch {
    private ClusterLaunch() {
    }

    /** {@code n1@127.0.0.1:p1,n2@...}: {@code nodes} replicas with Raft ports of the fixture's. */
    public static String members(final int nodes) {
        return IntStream.rangeClosed(1, nodes).mapToObj(i -> "n" + i + "@127.0.0.1:" + FreePorts.next())
                .collect(Collectors.joining(","));
    }

    /**
     * Starts every builder's process at once (a replica starts its front-ends only once its group has a leader, which
     * takes a majority running) and adds each that started to {@code into}, in order, so the test closes all of them
     * even if another failed; then throws the last failure, if any.
     */
    public static void startTogether(final List<RunningBroker.Builder> builders, final List<RunningBroker> into) {
        final List<CompletableFuture<RunningBroker>> starting = new ArrayList<>();
        for (RunningBroker.Builder builder : builders) {
            starting.add(CompletableFuture.supplyAsync(builder::start));
        }
        RuntimeException failed = null;
        for (CompletableFuture<RunningBroker> node : starting) {
            try {
                into.add(node.join());
            } catch (RuntimeException e) {
                failed = e;
            }
        }
        if (failed != null) {
            throw failed;
        }
    }
}
