package io.junction.spi.clients;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The connected clients of every front-end. A front-end adds a connection once the client is accepted (after its
 * handshake and authentication) and removes it when the connection closes; the broker shares one registry among all
 * front-ends. Adding and removing are a map update each: cheap enough for connect storms, and never blocking.
 */
public final class ClientRegistry {

    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentMap<Long, ClientConnection> connections = new ConcurrentHashMap<>();
    private final PopConsumers popConsumers = new PopConsumers();

    /**
     * One connected client.
     *
     * @param id          the registry's id of the connection (unique while the broker runs)
     * @param protocol    the front-end's name (as in the metrics' {@code protocol} label)
     * @param version     the protocol version the client speaks ({@code 5.0}, {@code 3.1.1}, ...)
     * @param clientId    the client's own id (MQTT client identifier, AMQP container id), or empty
     * @param user        the authenticated user, or empty when anonymous
     * @param remote      the client's address ({@code host:port})
     * @param connectedAt epoch ms of the acceptance
     * @param details     what the client reads or writes (subscriptions, links), computed on request
     * @param disconnect  closes the connection the protocol's way (with a reason where the protocol has one); callable
     *                    from any thread
     */
    public record ClientConnection(long id, String protocol, String version, String clientId, String user,
                                   String remote, long connectedAt, Supplier<List<String>> details,
                                   Runnable disconnect) {
    }

    /** Removes a connection from the registry; idempotent. */
    @FunctionalInterface
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /** Lists a connection; close the registration when it closes. */
    public Registration add(final String protocol, final String version, final String clientId, final String user,
                            final SocketAddress remote, final Supplier<List<String>> details,
                            final Runnable disconnect) {
        final long id = ids.incrementAndGet();
        connections.put(id, new ClientConnection(id, protocol, version, clientId == null ? "" : clientId,
                user == null ? "" : user, address(remote), System.currentTimeMillis(), details, disconnect));
        return () -> connections.remove(id);
    }

    /** Every listed connection, oldest first. */
    public List<ClientConnection> list() {
        final List<ClientConnection> all = new ArrayList<>(connections.values());
        all.sort(Comparator.comparingLong(ClientConnection::id));
        return all;
    }

    /** The consumers that recently popped, per group (POP consumers send no heartbeat: front-ends note their pops). */
    public PopConsumers popConsumers() {
        return popConsumers;
    }

    public Optional<ClientConnection> get(final long id) {
        return Optional.ofNullable(connections.get(id));
    }

    /** {@code host:port} of an address, as connections are listed (empty for none). */
    public static String address(final SocketAddress remote) {
        if (remote instanceof InetSocketAddress a) {
            return a.getHostString() + ':' + a.getPort();
        }
        return remote == null ? "" : remote.toString();
    }
}
