package io.junction.cluster.proxy;

import io.junction.cluster.contract.RemoteMessaging;
import io.junction.cluster.contract.StoreTopology;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a store group's leader from a proxy. Any member answers {@code TOPOLOGY} with the leader and every member's
 * contract address, so the proxy asks, in turn, the leader it knows, the members it learnt and the configured seeds,
 * and keeps one {@link RemoteMessaging} per contract address. {@link #locate} runs on the proxy's own thread (it may
 * wait on answers); callers of {@link #leader} never wait: without a known leader they fail with UNAVAILABLE, and a
 * call that failed with UNAVAILABLE asks for a new look-up ({@link #suspect}).
 */
final class LeaderLocator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderLocator.class);
    /** How long one member may take to answer a topology question. */
    private static final Duration ASK_TIMEOUT = Duration.ofSeconds(2);

    private final EventLoopGroup loops;
    private final List<String> seeds;
    private final int maxMessageSize;
    private final Duration callTimeout;
    private final Map<String, RemoteMessaging> clients = new ConcurrentHashMap<>();
    /** Every contract address heard of (seeds first), and whether its last answer came. */
    private final Map<String, Long> lastAnswerMillis = new ConcurrentHashMap<>();
    private final Set<String> known = ConcurrentHashMap.newKeySet();
    private volatile String leaderId;
    private volatile String leaderAddress;
    private volatile RemoteMessaging leader;
    private volatile Runnable onSuspect = () -> { };

    LeaderLocator(final EventLoopGroup loops, final List<String> seeds, final int maxMessageSize,
                  final Duration callTimeout) {
        this.loops = loops;
        this.seeds = List.copyOf(seeds);
        this.maxMessageSize = maxMessageSize;
        this.callTimeout = callTimeout;
        known.addAll(seeds);
    }

    /** Runs {@code action} (on the caller's thread, quickly) when a call suspects the leader moved. */
    void onSuspect(final Runnable action) {
        this.onSuspect = action;
    }

    /** The leader's contract, or UNAVAILABLE when none is known (an election, or no member answers). */
    RemoteMessaging leader() {
        final RemoteMessaging current = leader;
        if (current == null) {
            throw new StoreException(StoreError.UNAVAILABLE, "the proxy knows no leader of its store group now");
        }
        return current;
    }

    String leaderId() {
        return leaderId;
    }

    String leaderAddress() {
        return leaderAddress;
    }

    /** A call through {@code used} failed with UNAVAILABLE: the leader may have moved. */
    void suspect() {
        onSuspect.run();
    }

    /**
     * Asks the members in turn who leads until one names a leader that published its address; on the proxy's own
     * thread. When none does, the leader is forgotten (calls fail at once until the next look-up finds one).
     *
     * @return whether a leader is known now
     */
    boolean locate() {
        final Set<String> order = new LinkedHashSet<>();
        if (leaderAddress != null) {
            order.add(leaderAddress);
        }
        order.addAll(known);
        for (String address : order) {
            final StoreTopology topology = ask(address);
            if (topology == null) {
                continue;
            }
            known.addAll(topology.contracts().values());
            final String contract = topology.leaderContract();
            if (contract != null) {
                if (!contract.equals(leaderAddress)) {
                    LOG.info("Proxy: store group leader is {} at {}", topology.leaderId(), contract);
                }
                leaderId = topology.leaderId();
                leaderAddress = contract;
                leader = client(contract);
                return true;
            }
        }
        if (leader != null) {
            LOG.info("Proxy: no member of the store group names a leader now");
        }
        leader = null;
        leaderId = null;
        leaderAddress = null;
        return false;
    }

    private StoreTopology ask(final String address) {
        final RemoteMessaging client;
        try {
            client = client(address);
        } catch (IllegalArgumentException e) {
            LOG.warn("Proxy: {} is not a host:port contract address", address);
            return null;
        }
        try {
            final StoreTopology topology = client.admin().topology().get(ASK_TIMEOUT.toMillis(),
                    TimeUnit.MILLISECONDS);
            lastAnswerMillis.put(address, System.currentTimeMillis());
            return topology;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("Proxy: {} does not answer: {}", address, e.getMessage());
            return null;
        }
    }

    private RemoteMessaging client(final String address) {
        return clients.computeIfAbsent(address, a -> new RemoteMessaging(loops, parse(a), maxMessageSize,
                callTimeout));
    }

    static InetSocketAddress parse(final String address) {
        final int colon = address.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("not host:port: " + address);
        }
        final int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not host:port: " + address, e);
        }
        if (port <= 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port out of range: " + address);
        }
        return InetSocketAddress.createUnresolved(address.substring(0, colon).trim(), port);
    }

    /** Every contract address heard of, with when it last answered (epoch ms, -1 never). */
    Map<String, Long> reached() {
        final Map<String, Long> reached = new TreeMap<>();
        for (String address : known) {
            reached.put(address, lastAnswerMillis.getOrDefault(address, -1L));
        }
        return reached;
    }

    List<String> seeds() {
        return new ArrayList<>(seeds);
    }

    @Override
    public void close() {
        clients.values().forEach(RemoteMessaging::close);
        clients.clear();
    }
}
