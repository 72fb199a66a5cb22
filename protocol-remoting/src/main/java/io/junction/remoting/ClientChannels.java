package io.junction.remoting;

import io.junction.spi.clients.ClientRegistry;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which connection each producer and consumer client of a group uses, learned from heartbeats, so the broker can send
 * requests to clients (consumer-ids-changed notices, transaction checks). Forgotten when the connection closes.
 *
 * <p>A connection that sent a heartbeat is a client in the broker's {@link ClientRegistry} (a connection that only
 * asks for routes, as tools and the name-server role see, is not): listed with the client id and groups its
 * heartbeats declare; disconnecting it closes the channel, which is all Remoting has.
 */
public final class ClientChannels {
    /** Per channel: the (group, clientId) registrations made over it. */
    private static final AttributeKey<Set<Registration>> REGISTRATIONS =
            AttributeKey.valueOf("junction.remoting.registrations");

    /**
     * Per channel: the consumer groups whose client on it starts from a point in time where the group has no offset
     * ({@code CONSUME_FROM_TIMESTAMP} in its heartbeat).
     */
    private static final AttributeKey<Set<String>> TIMESTAMP_STARTS =
            AttributeKey.valueOf("junction.remoting.timestamp-starts");

    /** Per channel: its entry in the client registry, once it sent a heartbeat. */
    private static final AttributeKey<ClientRegistry.Registration> LISTED =
            AttributeKey.valueOf("junction.remoting.listed");

    /** Per channel: the user its requests were signed by, once one was allowed (security on). */
    private static final AttributeKey<String> USER = AttributeKey.valueOf("junction.remoting.user");

    /** One client of one group over one channel. */
    public record Registration(boolean consumer, String group, String clientId) {
    }

    private final Map<String, Map<String, Channel>> consumers = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Channel>> producers = new ConcurrentHashMap<>();
    private final ClientRegistry clients;

    /** Channels of a front-end whose connections nobody lists (tests). */
    public ClientChannels() {
        this(new ClientRegistry());
    }

    public ClientChannels(final ClientRegistry clients) {
        this.clients = clients;
    }

    /** The first user allowed a request on {@code channel} (the one the console shows for the connection). */
    public static void actingAs(final Channel channel, final String user) {
        channel.attr(USER).setIfAbsent(user);
    }

    /**
     * Lists the channel in the client registry on its first heartbeat (on the channel's event loop, as the heartbeat
     * is processed); later heartbeats change only what its details show.
     *
     * @param language the client's language as its requests say ({@code JAVA}, {@code CPP}, ...)
     * @param version  the client's RocketMQ version code as its requests carry it
     */
    public void heartbeatFrom(final Channel channel, final String clientId, final String language,
                              final int version) {
        if (channel.attr(LISTED).get() != null) {
            return;
        }
        final ClientRegistry.Registration listed = clients.add("remoting", language + " " + version, clientId,
                channel.attr(USER).get(), channel.remoteAddress(), () -> describe(channel), channel::close);
        channel.attr(LISTED).set(listed);
        if (!channel.isActive()) {
            listed.close(); // closed meanwhile: channelClosed may have looked before the line above
        }
    }

    /** What a listed channel's client is, from its registrations ("producer of g", "consumer of g"); any thread. */
    private static List<String> describe(final Channel channel) {
        final Set<Registration> regs = channel.attr(REGISTRATIONS).get();
        if (regs == null) {
            return List.of();
        }
        return regs.stream().map(r -> (r.consumer() ? "consumer of " : "producer of ") + r.group()).sorted()
                .toList();
    }

    /** Records a client of a group on a channel. */
    public void register(final Channel channel, final boolean consumer, final String group, final String clientId) {
        (consumer ? consumers : producers).computeIfAbsent(group, g -> new ConcurrentHashMap<>())
                .put(clientId, channel);
        Set<Registration> regs = channel.attr(REGISTRATIONS).get();
        if (regs == null) {
            final Set<Registration> created = ConcurrentHashMap.newKeySet();
            regs = channel.attr(REGISTRATIONS).setIfAbsent(created);
            if (regs == null) {
                regs = created;
            }
        }
        regs.add(new Registration(consumer, group, clientId));
    }

    /**
     * Records whether the channel's client of a consumer group starts from a timestamp on a queue where the group has
     * no offset, as its heartbeat says ({@code consumeFromWhere}); the latest heartbeat wins.
     */
    public void startFromTimestamp(final Channel channel, final String group, final boolean fromTimestamp) {
        Set<String> groups = channel.attr(TIMESTAMP_STARTS).get();
        if (groups == null) {
            if (!fromTimestamp) {
                return;
            }
            final Set<String> created = ConcurrentHashMap.newKeySet();
            groups = channel.attr(TIMESTAMP_STARTS).setIfAbsent(created);
            if (groups == null) {
                groups = created;
            }
        }
        if (fromTimestamp) {
            groups.add(group);
        } else {
            groups.remove(group);
        }
    }

    /** Whether the channel's client of the group declared {@code CONSUME_FROM_TIMESTAMP} in its last heartbeat. */
    public boolean startsFromTimestamp(final Channel channel, final String group) {
        final Set<String> groups = channel.attr(TIMESTAMP_STARTS).get();
        return groups != null && groups.contains(group);
    }

    /** Forgets a client of a group. */
    public void unregister(final Channel channel, final boolean consumer, final String group, final String clientId) {
        final Map<String, Channel> clients = (consumer ? consumers : producers).get(group);
        if (clients != null) {
            clients.remove(clientId, channel);
        }
        final Set<Registration> regs = channel.attr(REGISTRATIONS).get();
        if (regs != null) {
            regs.remove(new Registration(consumer, group, clientId));
        }
    }

    /** Forgets everything registered over a closed channel; returns what it was. */
    public List<Registration> channelClosed(final Channel channel) {
        final ClientRegistry.Registration listed = channel.attr(LISTED).getAndSet(null);
        if (listed != null) {
            listed.close();
        }
        return forgetRegistrations(channel);
    }

    /**
     * Forgets the groups' clients registered over a channel that stays open (its user may no longer act); returns
     * what they were. A later heartbeat, if allowed, registers them again.
     */
    public List<Registration> forgetRegistrations(final Channel channel) {
        final Set<Registration> regs = channel.attr(REGISTRATIONS).getAndSet(null);
        if (regs == null) {
            return List.of();
        }
        final List<Registration> removed = new ArrayList<>(regs);
        for (Registration r : removed) {
            final Map<String, Channel> clients = (r.consumer() ? consumers : producers).get(r.group());
            if (clients != null) {
                clients.remove(r.clientId(), channel);
            }
        }
        return removed;
    }

    /** Active channels of a consumer group's clients. */
    public List<Channel> consumerChannels(final String group) {
        return active(consumers.get(group));
    }

    /** Active channels of a producer group's clients. */
    public List<Channel> producerChannels(final String group) {
        return active(producers.get(group));
    }

    /**
     * The active connection of a producer client, whatever its group (a requester waiting for replies), or null.
     */
    public Channel producerChannel(final String clientId) {
        for (Map<String, Channel> clients : producers.values()) {
            final Channel c = clients.get(clientId);
            if (c != null && c.isActive()) {
                return c;
            }
        }
        return null;
    }

    /** Producer groups with a connected client. */
    public Set<String> producerGroups() {
        return producers.keySet();
    }

    private static List<Channel> active(final Map<String, Channel> clients) {
        if (clients == null) {
            return List.of();
        }
        final List<Channel> out = new ArrayList<>();
        for (Channel c : clients.values()) {
            if (c.isActive() && !out.contains(c)) {
                out.add(c);
            }
        }
        return out;
    }
}
