package io.junction.cluster.proxy;

import io.junction.cluster.ClusterStartException;
import io.junction.cluster.contract.MirrorSnapshot;
import io.junction.cluster.contract.RemoteMessaging;
import io.junction.core.Messaging;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A proxy: front-ends only, no replica, no data. It follows its store group's leader ({@link LeaderLocator}: asked
 * every {@link #LOCATE_INTERVAL}, and at once when a call finds the leader gone) and mirrors the leader's metadata
 * every {@link #MIRROR_INTERVAL} ({@link MetadataMirror}); its front-ends hold {@link #messaging()}. One thread of
 * its own does the asking, so no front-end thread ever waits on the network. Killing a proxy loses nothing: every
 * acknowledged write was committed by the group before the proxy answered.
 */
public final class ProxyNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProxyNode.class);
    /** How often the metadata mirror is refreshed from the leader: the bound of its staleness. */
    public static final Duration MIRROR_INTERVAL = Duration.ofMillis(500);
    /** How often the proxy asks who leads (besides when a call finds the leader gone). */
    static final Duration LOCATE_INTERVAL = Duration.ofSeconds(1);
    /** The shortest time between two look-ups a failing call asks for. */
    private static final long RELOCATE_MIN_MILLIS = 200;
    /** A proxy whose last snapshot is older than this does not claim to reach its leader. */
    private static final long HEALTHY_MIRROR_AGE_MILLIS = 5_000;
    /** How long a forwarded call waits for its answer beyond a long poll's own wait. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);

    private final EventLoopGroup loops = new MultiThreadIoEventLoopGroup(1, r -> {
        final Thread t = new Thread(r, "junction-proxy-contract");
        t.setDaemon(true);
        return t;
    }, NioIoHandler.newFactory());
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "junction-proxy-follow");
        t.setDaemon(true);
        return t;
    });
    private final LeaderLocator locator;
    private final MetadataMirror mirror = new MetadataMirror();
    private final ProxyMessaging messaging;
    private final AtomicBoolean relocating = new AtomicBoolean();
    private volatile long lastLocateMillis;

    private ProxyNode(final List<String> storeContracts, final int maxMessageSize) {
        this.locator = new LeaderLocator(loops, storeContracts, maxMessageSize, CALL_TIMEOUT);
        this.messaging = new ProxyMessaging(locator, mirror);
        locator.onSuspect(this::relocateSoon);
    }

    /**
     * Starts following the store group and waits for its leader and a first metadata snapshot.
     *
     * @param storeContracts the store nodes' contract servers ({@code host:port}); one reachable member suffices
     * @param maxMessageSize the largest message body (frames are that plus slack)
     * @param settleTimeout  how long to wait for a leader and its metadata
     * @throws ClusterStartException when no leader answers in time
     */
    public static ProxyNode start(final List<String> storeContracts, final int maxMessageSize,
                                  final Duration settleTimeout) {
        if (storeContracts.isEmpty()) {
            throw new ClusterStartException("a proxy needs the store nodes' contract addresses");
        }
        for (String address : storeContracts) {
            try {
                LeaderLocator.parse(address);
            } catch (IllegalArgumentException e) {
                throw new ClusterStartException("cluster.store-contracts: " + e.getMessage(), e);
            }
        }
        final ProxyNode node = new ProxyNode(storeContracts, maxMessageSize);
        final long deadline = System.nanoTime() + settleTimeout.toNanos();
        while (!(node.locate() && node.refreshMirror())) {
            if (System.nanoTime() - deadline > 0) {
                node.close();
                throw new ClusterStartException("the proxy reached no leader of its store group "
                        + storeContracts + " within " + settleTimeout.toSeconds() + " s");
            }
            try {
                Thread.sleep(LOCATE_INTERVAL.toMillis()); // Start-up retry pacing, not a test wait.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                node.close();
                throw new ClusterStartException("proxy start interrupted", e);
            }
        }
        node.thread.scheduleWithFixedDelay(node::locate, LOCATE_INTERVAL.toMillis(), LOCATE_INTERVAL.toMillis(),
                TimeUnit.MILLISECONDS);
        node.thread.scheduleWithFixedDelay(node::refreshMirror, MIRROR_INTERVAL.toMillis(),
                MIRROR_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        LOG.info("Proxy started: store group leader {} at {}", node.locator.leaderId(), node.locator.leaderAddress());
        return node;
    }

    /** Looks for the leader; one found anew (after none, or another) hears of this proxy's consumer clients. */
    private boolean locate() {
        lastLocateMillis = System.currentTimeMillis();
        try {
            final String before = locator.leaderAddress();
            final boolean found = locator.locate();
            if (found && !locator.leaderAddress().equals(before)) {
                messaging.leaderFound();
            }
            return found;
        } catch (RuntimeException e) {
            LOG.warn("Proxy: looking for the leader failed", e);
            return false;
        }
    }

    /** A call found the leader gone: look again soon (at most every {@value #RELOCATE_MIN_MILLIS} ms). */
    private void relocateSoon() {
        if (!relocating.compareAndSet(false, true)) {
            return;
        }
        final long wait = Math.max(0, lastLocateMillis + RELOCATE_MIN_MILLIS - System.currentTimeMillis());
        try {
            thread.schedule(() -> {
                relocating.set(false);
                if (locate()) {
                    refreshMirror();
                }
            }, wait, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            relocating.set(false); // Closed.
        }
    }

    private boolean refreshMirror() {
        final RemoteMessaging leader;
        try {
            leader = locator.leader();
        } catch (RuntimeException e) {
            return false;
        }
        final long askedAt = System.nanoTime();
        try {
            final MirrorSnapshot snapshot = leader.admin().mirror().get(CALL_TIMEOUT.toMillis(),
                    TimeUnit.MILLISECONDS);
            mirror.apply(snapshot, askedAt);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException | IOException | RuntimeException e) {
            LOG.debug("Proxy: the metadata snapshot failed", e);
            locator.suspect();
            return false;
        }
    }

    /**
     * Refreshes the metadata mirror now, off the caller's thread (a send that met a sealed queue wants the new
     * placement before the next periodic refresh); completes when done, true if the leader answered.
     */
    public CompletableFuture<Boolean> refreshMirrorNow() {
        try {
            return CompletableFuture.supplyAsync(this::refreshMirror, thread);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(false); // Closed.
        }
    }

    /** The contract this proxy's front-ends hold. */
    public Messaging messaging() {
        return messaging;
    }

    /** Whether a leader is known and its metadata arrived recently: the proxy serves. */
    public boolean reachesLeader() {
        final long age = mirror.ageMillis();
        return locator.leaderAddress() != null && age >= 0 && age <= HEALTHY_MIRROR_AGE_MILLIS;
    }

    public ProxyStatus status() {
        final long now = System.currentTimeMillis();
        final List<ProxyStatus.Store> stores = new ArrayList<>();
        for (Map.Entry<String, Long> e : locator.reached().entrySet()) {
            stores.add(new ProxyStatus.Store(e.getKey(), e.getValue() < 0 ? -1 : now - e.getValue()));
        }
        return new ProxyStatus("PROXY", locator.leaderId(), locator.leaderAddress(), reachesLeader(),
                mirror.ageMillis(), stores);
    }

    @Override
    public void close() {
        thread.shutdownNow();
        locator.close();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
