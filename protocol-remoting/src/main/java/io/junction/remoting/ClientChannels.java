package io.junction.remoting;

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

    /** One client of one group over one channel. */
    public record Registration(boolean consumer, String group, String clientId) {
    }

    private final Map<String, Map<String, Channel>> consumers = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Channel>> producers = new ConcurrentHashMap<>();

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
