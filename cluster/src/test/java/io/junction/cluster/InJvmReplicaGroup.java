package io.junction.cluster;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.TestStores;
import io.junction.core.message.StoredMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Three store replicas ({@code n1..n3}) in this JVM, each a Ratis server and a contract server on ports of its own,
 * each with its data in {@link #dataDir}: start them, stop one, start it again on its data, find the leader. A JUnit
 * extension ({@code @RegisterExtension}): before each test a new data directory and new ports; after it every node
 * still running is stopped and the data directory deleted.
 *
 * <p>Ports are chosen once per test, for the whole group and before anything binds (a contract server on "any free
 * port" could take a Raft port picked for a node that has not started yet); a node keeps its ports across restarts.
 */
final class InJvmReplicaGroup implements BeforeEachCallback, AfterEachCallback {
    /**
     * Not shorter by default: on a loaded CI machine a 600 ms timeout let a replica that missed two heartbeats depose a
     * healthy leader, failing a send in flight with "not the leader".
     */
    static final Duration ELECTION_TIMEOUT = Duration.ofMillis(1500);
    private static final int REPLICAS = 3;

    /** One replica: the {@link ReplicaMessaging} its store is reached through, and the node. */
    record Node(String id, ReplicaMessaging messaging, ClusterNode node) {

        /** Pulls queue 0 of {@code topic} from offset 0 until {@code expected} messages came (or 30 s passed). */
        List<StoredMessage> readAll(final String topic, final int expected) {
            final List<StoredMessage> all = new ArrayList<>();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long offset = 0;
            while (all.size() < expected && System.nanoTime() < deadline) {
                final PullResult r = messaging.pull(new PullRequest("test", topic, 0, offset, 32, null, 0)).join();
                all.addAll(r.messages());
                offset = r.nextOffset();
            }
            return all;
        }
    }

    private final Duration electionTimeout;
    private final RaftLogLimits raftLog;
    private final boolean forwarding;
    private final Duration wait;
    private final List<ClusterMember> members = new ArrayList<>();
    private final Map<String, Integer> contractPorts = new HashMap<>();
    private final List<Node> running = new ArrayList<>();
    private Path dir;
    private UnaryOperator<StoreConfig.Builder> store = UnaryOperator.identity();

    private InJvmReplicaGroup(final Builder b) {
        this.electionTimeout = b.electionTimeout;
        this.raftLog = b.raftLog;
        this.forwarding = b.forwarding;
        this.wait = b.wait;
    }

    /** A group with the settings most tests use; change them on the builder. */
    static Builder builder() {
        return new Builder();
    }

    @Override
    public void beforeEach(final ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("junction-replicas");
        members.clear();
        contractPorts.clear();
        store = UnaryOperator.identity();
        for (int i = 1; i <= REPLICAS; i++) {
            members.add(new ClusterMember("n" + i, "127.0.0.1", LocalPorts.next()));
            contractPorts.put("n" + i, LocalPorts.next());
        }
    }

    @Override
    public void afterEach(final ExtensionContext context) throws IOException {
        // Whoever leads goes first, while a follower is up to take over: its hand-over then takes milliseconds. A
        // leader stopped last tries to hand over to a follower stopped a moment ago and waits an election timeout for
        // nothing. The node it handed to may do the same if it became a ready leader before the others stopped; the
        // last node alone cannot, so it stops at once. (All three side by side was tried: the leader's hand-over
        // then fails after an election timeout every time.)
        while (!running.isEmpty()) {
            final Node next = running.stream().filter(n -> "LEADER".equals(n.node().status().role())).findFirst()
                    .orElse(running.get(0));
            stop(next);
        }
        deleteTree(dir);
    }

    /** Where node {@code id} keeps its data (commit log, tables, Raft log under {@code cluster/raft}). */
    Path dataDir(final String id) {
        return dir.resolve(id);
    }

    /** Deletes a stopped node's whole data directory: it starts again as a new, empty member. */
    void wipe(final String id) throws IOException {
        deleteTree(dataDir(id));
    }

    /** Starts n1, n2 and n3 (each returns at once: the election follows); a list the test may change. */
    List<Node> startAll() {
        return startAll(UnaryOperator.identity());
    }

    /** As {@link #startAll()}, each store (now and at restarts) with these changes to its {@link TestStores#small}. */
    List<Node> startAll(final UnaryOperator<StoreConfig.Builder> storeChanges) {
        this.store = storeChanges;
        final List<Node> group = new ArrayList<>();
        for (ClusterMember m : members) {
            group.add(start(m.id()));
        }
        return group;
    }

    /** Starts node {@code id} on its data directory (new or left by an earlier run of it) and its own ports. */
    Node start(final String id) {
        return start(id, electionTimeout);
    }

    /** As {@link #start(String)}, with an election timeout of this node's own (to make it likely to win, or lose). */
    Node start(final String id, final Duration timeout) {
        final ClusterSettings settings = new ClusterSettings(id, members, timeout, dir.resolve(id),
                contractPorts.get(id), raftLog);
        final StoreConfig config = store.apply(TestStores.small(dir.resolve(id))).build();
        final ReplicaMessaging messaging = new ReplicaMessaging();
        // Forwarding, as the broker wires it: a follower's ReplicaMessaging sends writes to the leader. Without it a
        // follower's own store refuses writes.
        final ClusterNode node = forwarding ? ClusterNode.start(settings, config, messaging)
                : ClusterNode.start(settings, config, messaging::switchTo);
        final Node n = new Node(id, messaging, node);
        running.add(n);
        return n;
    }

    /** Stops {@code n} (a clean close: a leader hands its leadership over). */
    void stop(final Node n) {
        n.node().close();
        running.remove(n);
    }

    /** Stops {@code n} and removes it from {@code group}. */
    void stop(final Node n, final List<Node> group) {
        stop(n);
        group.remove(n);
    }

    /** The one node among {@code among} that accepts writes, once there is exactly one. */
    Node awaitLeader(final List<Node> among) {
        return ReplicaAwaits.awaitLeader(among, Node::node, Node::id, wait);
    }

    /** The leader among {@code group}, once every node of it knows that leader (no election under way). */
    Node awaitSettledLeader(final List<Node> group) {
        final Node leader = awaitLeader(group);
        await(() -> group.stream().allMatch(n -> leader.id().equals(n.node().status().leader())),
                "every node to know the leader");
        return leader;
    }

    /** Polls {@code condition} until it holds; fails naming {@code what} after the group's wait. */
    void await(final BooleanSupplier condition, final String what) {
        ReplicaAwaits.await(condition, what, wait);
    }

    private static void deleteTree(final Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** What differs between the tests' groups; each default is what most of them use. */
    static final class Builder {
        private Duration electionTimeout = ELECTION_TIMEOUT;
        private RaftLogLimits raftLog = RaftLogLimits.DEFAULT;
        private boolean forwarding;
        private Duration wait = Duration.ofSeconds(30);

        private Builder() {
        }

        Builder electionTimeout(final Duration timeout) {
            this.electionTimeout = timeout;
            return this;
        }

        Builder raftLog(final RaftLogLimits limits) {
            this.raftLog = limits;
            return this;
        }

        /** A follower forwards writes to the leader (as the broker wires a replica). */
        Builder forwarding() {
            this.forwarding = true;
            return this;
        }

        /** How long {@link #await} and {@link #awaitLeader} wait at the most. */
        Builder waitAtMost(final Duration deadline) {
            this.wait = deadline;
            return this;
        }

        InJvmReplicaGroup build() {
            return new InJvmReplicaGroup(this);
        }
    }
}
