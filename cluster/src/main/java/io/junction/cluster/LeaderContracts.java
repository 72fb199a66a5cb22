package io.junction.cluster;

import io.junction.cluster.contract.RemoteMessaging;
import io.junction.core.Messaging;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Where each member's contract server is, and one {@link RemoteMessaging} per member that has one: what a follower
 * forwards through. The addresses are replicated state: each node publishes its own in the store's key-value configs
 * under {@link #NAMESPACE} (key = node id, value = {@code host:port}), so every node reads every node's address
 * locally, and a restarted node that binds another port publishes again.
 */
final class LeaderContracts implements AutoCloseable {
    /** The key-value namespace members publish their contract addresses in. */
    static final String NAMESPACE = "junction.cluster.contract";
    /** How long a forwarded call waits for its answer beyond a long poll's own wait. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);

    private final EventLoopGroup loops = new MultiThreadIoEventLoopGroup(1, r -> {
        final Thread t = new Thread(r, "junction-contract-client");
        t.setDaemon(true);
        return t;
    }, NioIoHandler.newFactory());
    private final int maxMessageSize;
    private final Map<String, RemoteMessaging> clients = new ConcurrentHashMap<>();

    LeaderContracts(final int maxMessageSize) {
        this.maxMessageSize = maxMessageSize;
    }

    /** The text a node publishes for its contract server. */
    static String addressText(final InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }

    /** A published {@code host:port} (unresolved), or empty when the text is not one. */
    static Optional<InetSocketAddress> parseAddress(final String published) {
        final int colon = published == null ? -1 : published.lastIndexOf(':');
        if (colon <= 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetSocketAddress.createUnresolved(published.substring(0, colon),
                    Integer.parseInt(published.substring(colon + 1))));
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // Not a number, or not a port.
        }
    }

    /**
     * The client for a member whose address is {@code published} ({@code host:port}), or empty when the text is not
     * an address. A member that published a new address gets a new client; the old one is closed.
     */
    Optional<Messaging> client(final String memberId, final String published) {
        final Optional<InetSocketAddress> parsed = parseAddress(published);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        final InetSocketAddress address = parsed.get();
        final RemoteMessaging client = clients.compute(memberId, (id, current) -> {
            if (current != null && current.address().equals(address)) {
                return current;
            }
            if (current != null) {
                current.close();
            }
            return new RemoteMessaging(loops, address, maxMessageSize, CALL_TIMEOUT);
        });
        return Optional.of(client);
    }

    @Override
    public void close() {
        clients.values().forEach(RemoteMessaging::close);
        clients.clear();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
