package io.junction.conformance.support;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Starting the broker processes of a cluster test: the member list, one replica group's nodes, store groups with
 * proxies in front of them, and every process at once.
 */
public final class ClusterLaunch {
    private ClusterLaunch() {
    }

    /** {@code n1@127.0.0.1:p1,n2@...}: {@code nodes} replicas with Raft ports of the fixture's. */
    public static String members(final int nodes) {
        return IntStream.rangeClosed(1, nodes).mapToObj(i -> "n" + i + "@127.0.0.1:" + FreePorts.next())
                .collect(Collectors.joining(","));
    }

    /**
     * The nodes {@code n1..n<count>} of one replica group, not started: the members on Raft ports of the fixture's,
     * each node a contract port of the fixture's ("any free port" could take a port it handed to another node), this
     * election timeout, 16 MiB commit-log segments. The caller adds the role and whatever else its test needs.
     */
    public static List<RunningBroker.Builder> replicaGroup(final int count, final int electionTimeoutMs) {
        final List<Integer> contractPorts = IntStream.range(0, count).mapToObj(i -> FreePorts.next()).toList();
        return replicaGroup(contractPorts, electionTimeoutMs);
    }

    private static List<RunningBroker.Builder> replicaGroup(final List<Integer> contractPorts,
                                                            final int electionTimeoutMs) {
        final String members = members(contractPorts.size());
        final List<RunningBroker.Builder> nodes = new ArrayList<>();
        for (int i = 0; i < contractPorts.size(); i++) {
            nodes.add(RunningBroker.builder()
                    .set("cluster.node-id", "n" + (i + 1))
                    .set("cluster.members", members)
                    .set("cluster.contract-port", Integer.toString(contractPorts.get(i)))
                    .set("cluster.election-timeout-ms", Integer.toString(electionTimeoutMs))
                    .set("store.segment-size", "16m"));
        }
        return nodes;
    }

    /**
     * Starts {@code groups} store groups of {@code replicas} {@code store} nodes each (no client listeners; a 1 s
     * election timeout; {@code storeHeap} each), all at once, into {@code stores} (group by group); then {@code
     * proxyCount} proxies over them (Kafka off, 256 MiB heap each) into {@code proxies}. One group is given to a proxy
     * as {@code cluster.store-contracts}, several as {@code cluster.store-groups} {@code g1..g<groups>}.
     */
    public static void storeGroupsAndProxies(final int groups, final int replicas, final String storeHeap,
                                             final int proxyCount, final List<RunningBroker> stores,
                                             final List<RunningBroker> proxies) {
        final List<String> contracts = storeGroups(groups, replicas, storeHeap, stores);
        final List<RunningBroker.Builder> proxyNodes = new ArrayList<>();
        for (int i = 0; i < proxyCount; i++) {
            final RunningBroker.Builder proxy = groups == 1
                    ? RunningBroker.builder().set("cluster.role", "proxy").set("cluster.store-contracts",
                    contracts.get(0)) : proxyOver(contracts);
            proxyNodes.add(proxy.set("kafka.enabled", "false").jvmArgs("-Xmx256m"));
        }
        startTogether(proxyNodes, proxies);
    }

    /**
     * Starts {@code groups} store groups as {@link #storeGroupsAndProxies} does, without proxies; returns each group's
     * contract addresses ({@code host:port,...}), in order.
     */
    public static List<String> storeGroups(final int groups, final int replicas, final String storeHeap,
                                           final List<RunningBroker> stores) {
        final List<RunningBroker.Builder> storeNodes = new ArrayList<>();
        final List<String> groupContracts = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            final List<Integer> contractPorts = IntStream.range(0, replicas).mapToObj(i -> FreePorts.next()).toList();
            for (RunningBroker.Builder node : replicaGroup(contractPorts, 1000)) {
                storeNodes.add(node.set("cluster.role", "store").jvmArgs(storeHeap));
            }
            groupContracts.add(contractPorts.stream().map(port -> "127.0.0.1:" + port)
                    .collect(Collectors.joining(",")));
        }
        startTogether(storeNodes, stores);
        return groupContracts;
    }

    /** A proxy configured with store groups {@code g1..g<n>} at {@code groupContracts} (to be started by the caller). */
    public static RunningBroker.Builder proxyOver(final List<String> groupContracts) {
        return RunningBroker.builder().set("cluster.role", "proxy").set("cluster.store-groups",
                IntStream.range(0, groupContracts.size()).mapToObj(g -> "g" + (g + 1) + "=" + groupContracts.get(g))
                        .collect(Collectors.joining(";")));
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

    /** Waits until exactly one of {@code among} leads its group and accepts writes; returns it. */
    public static RunningBroker awaitLeader(final List<RunningBroker> among, final Duration within) {
        final RunningBroker[] found = new RunningBroker[1];
        await("one node to lead and accept writes").atMost(within).pollInterval(Duration.ofMillis(50)).until(() -> {
            final List<RunningBroker> leaders = among.stream().filter(ClusterLaunch::acceptsWrites).toList();
            found[0] = leaders.size() == 1 ? leaders.get(0) : null;
            return found[0] != null;
        });
        return found[0];
    }

    /** Whether a node's {@code GET /cluster} says it accepts writes (false while it does not answer). */
    public static boolean acceptsWrites(final RunningBroker node) {
        try {
            return node.get("/cluster").body().contains("\"acceptsWrites\":true");
        } catch (RuntimeException e) {
            return false; // killed, stopped, or not answering yet
        }
    }
}
