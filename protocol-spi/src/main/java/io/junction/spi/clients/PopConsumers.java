package io.junction.spi.clients;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The consumers that recently popped messages for each group. POP consumers send no heartbeat (the server balances
 * their queues), so the core cannot list them as a group's clients; the front-ends note each pop here instead, with
 * what they know of the client: its protocol, its own id (gRPC {@code x-mq-client-id}, AMQP container id, ...) and its
 * address, either possibly empty.
 *
 * <p>Bounded: at most {@value #MAX_GROUPS} groups and {@value #MAX_PER_GROUP} consumers per group are remembered
 * (the least recently popping one makes room), and a consumer silent for {@value #FORGET_AFTER_MILLIS} ms is
 * forgotten. A pop of a known consumer updates a time in place: one map lookup and a short lock of its group.
 */
public final class PopConsumers {

    static final int MAX_GROUPS = 1024;
    static final int MAX_PER_GROUP = 32;
    static final long FORGET_AFTER_MILLIS = 10 * 60_000L;

    /** A consumer as the front-end knows it, and when it last popped (epoch ms). */
    public record PopConsumer(String protocol, String clientId, String remote, long lastPop) {
    }

    private record Who(String protocol, String clientId, String remote) {
    }

    private final ConcurrentMap<String, Map<Who, long[]>> groups = new ConcurrentHashMap<>();

    /** Notes a pop for {@code group} by the client described (null id or address: unknown). */
    public void popped(final String group, final String protocol, final String clientId, final String remote) {
        popped(group, protocol, clientId, remote, System.currentTimeMillis());
    }

    void popped(final String group, final String protocol, final String clientId, final String remote,
                final long now) {
        Map<Who, long[]> consumers = groups.get(group);
        if (consumers == null) {
            if (groups.size() >= MAX_GROUPS && !forgetSilentGroups(now)) {
                return; // too many groups popping at once: this one goes unlisted until others fall silent
            }
            consumers = groups.computeIfAbsent(group, g -> new LinkedHashMap<>(4, 0.75f, true));
        }
        final Who who = new Who(protocol, clientId == null ? "" : clientId, remote == null ? "" : remote);
        synchronized (consumers) {
            final long[] last = consumers.get(who); // access order: the least recent comes first
            if (last != null) {
                last[0] = now;
                return;
            }
            if (consumers.size() >= MAX_PER_GROUP) {
                final Iterator<long[]> eldest = consumers.values().iterator();
                eldest.next();
                eldest.remove();
            }
            consumers.put(who, new long[] {now});
        }
    }

    /** The consumers of {@code group} that popped within the last {@value #FORGET_AFTER_MILLIS} ms, latest first. */
    public List<PopConsumer> recent(final String group) {
        return recent(group, System.currentTimeMillis());
    }

    List<PopConsumer> recent(final String group, final long now) {
        final Map<Who, long[]> consumers = groups.get(group);
        if (consumers == null) {
            return List.of();
        }
        final List<PopConsumer> out = new ArrayList<>();
        synchronized (consumers) {
            consumers.forEach((who, last) -> {
                if (now - last[0] <= FORGET_AFTER_MILLIS) {
                    out.add(new PopConsumer(who.protocol(), who.clientId(), who.remote(), last[0]));
                }
            });
        }
        out.sort(Comparator.comparingLong(PopConsumer::lastPop).reversed());
        return out;
    }

    /** Drops the groups none of whose consumers popped lately; true when that made room. */
    private boolean forgetSilentGroups(final long now) {
        groups.entrySet().removeIf(e -> {
            synchronized (e.getValue()) {
                return e.getValue().values().stream().allMatch(last -> now - last[0] > FORGET_AFTER_MILLIS);
            }
        });
        return groups.size() < MAX_GROUPS;
    }
}
