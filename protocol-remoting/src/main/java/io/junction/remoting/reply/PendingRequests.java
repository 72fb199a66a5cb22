package io.junction.remoting.reply;

import io.netty.channel.Channel;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * RocketMQ requests waiting for a reply, by correlation id: which client sent each and over which connection, until
 * the request's time to live (plus a little) has passed. The connection a request came over is where its reply goes,
 * whether or not the client has sent a producer heartbeat yet.
 */
public final class PendingRequests {
    /** Most requests remembered at once; beyond it a reply is pushed to the client's heartbeat connection only. */
    static final int MAX_PENDING = 100_000;
    /** Sweep expired entries once this many are kept. */
    private static final int SWEEP_THRESHOLD = 1024;
    /** A request without a usable time to live waits this long (RocketMQ's default request timeout). */
    private static final long DEFAULT_TTL_MILLIS = 3000;
    private static final long MAX_TTL_MILLIS = 3_600_000;
    /** Replies may trail the requester's deadline by network time: they are still pushed (the client drops them). */
    private static final long GRACE_MILLIS = 1000;

    /** A request's requester. */
    public record Requester(String clientId, Channel channel, long expiresAt) {
    }

    private final Map<String, Requester> byCorrelationId = new ConcurrentHashMap<>();
    private final LongSupplier clock;

    public PendingRequests(final LongSupplier clock) {
        this.clock = clock;
    }

    /** Remembers a request; {@code ttl} is its TTL property (milliseconds as text, may be null). */
    void add(final String correlationId, final String clientId, final Channel channel, final String ttl) {
        final long now = clock.getAsLong();
        if (byCorrelationId.size() >= SWEEP_THRESHOLD) {
            sweep(now);
        }
        if (byCorrelationId.size() < MAX_PENDING) {
            byCorrelationId.put(correlationId, new Requester(clientId, channel, now + ttlMillis(ttl) + GRACE_MILLIS));
        }
    }

    /** The requester of a request, forgotten now: null when unknown, expired or its connection closed. */
    public Requester take(final String correlationId) {
        if (correlationId == null) {
            return null;
        }
        final Requester r = byCorrelationId.remove(correlationId);
        return r == null || r.expiresAt() < clock.getAsLong() || !r.channel().isActive() ? null : r;
    }

    int size() {
        return byCorrelationId.size();
    }

    private void sweep(final long now) {
        for (Iterator<Requester> it = byCorrelationId.values().iterator(); it.hasNext();) {
            final Requester r = it.next();
            if (r.expiresAt() < now || !r.channel().isActive()) {
                it.remove();
            }
        }
    }

    private static long ttlMillis(final String ttl) {
        if (ttl != null) {
            try {
                final long t = Long.parseLong(ttl.trim());
                if (t > 0) {
                    return Math.min(t, MAX_TTL_MILLIS);
                }
            } catch (NumberFormatException e) {
                // not a number: the default applies
            }
        }
        return DEFAULT_TTL_MILLIS;
    }
}
