package io.junction.tenancy;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Applies each namespace's {@link Quota}: token buckets for messages and bytes per second (a burst of one second's
 * worth), and a count of open connections.
 *
 * <p>Asked on every publish, from event loops: a namespace without limits costs one map lookup; a limited one a short
 * critical section on its own bucket. Limits are read from {@code quotas} on each call, so a change applies at once.
 */
public final class QuotaEnforcer {

    /** The answer to a publish: admitted, or refused with how long to wait before trying again. */
    public record Admission(boolean admitted, long retryAfterMillis) {
        public static final Admission ADMITTED = new Admission(true, 0);
    }

    private final Function<String, Quota> quotas;
    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<String, Buckets> buckets = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicInteger> connections = new ConcurrentHashMap<>();

    public QuotaEnforcer(final Function<String, Quota> quotas, final LongSupplier nanoClock) {
        this.quotas = quotas;
        this.nanoClock = nanoClock;
    }

    /** Takes {@code messages} and {@code bytes} from the namespace's budget, or refuses without taking any. */
    public Admission admitPublish(final String namespace, final int messages, final long bytes) {
        final Quota q = quotas.apply(namespace);
        if (q == null || q.messagesPerSecond() == 0 && q.bytesPerSecond() == 0) {
            return Admission.ADMITTED;
        }
        return buckets.computeIfAbsent(namespace, k -> new Buckets(nanoClock.getAsLong()))
                .take(q, messages, bytes, nanoClock.getAsLong());
    }

    /**
     * Counts a new connection of the namespace; false (and nothing counted) when it already has its maximum. Call
     * {@link #connectionClosed} exactly once for every true.
     */
    public boolean connectionOpened(final String namespace) {
        final Quota q = quotas.apply(namespace);
        final AtomicInteger open = connections.computeIfAbsent(namespace, k -> new AtomicInteger());
        while (true) {
            final int n = open.get();
            if (q != null && q.maxConnections() > 0 && n >= q.maxConnections()) {
                return false;
            }
            if (open.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    public void connectionClosed(final String namespace) {
        final AtomicInteger open = connections.get(namespace);
        if (open != null) {
            open.decrementAndGet();
        }
    }

    /** Connections open in a namespace (for metrics and tests). */
    public int openConnections(final String namespace) {
        final AtomicInteger open = connections.get(namespace);
        return open == null ? 0 : open.get();
    }

    /** Both buckets of one namespace; tokens in units of 1/1e9 so refill needs no division. */
    private static final class Buckets {
        private long messageNanoTokens;
        private long byteNanoTokens;
        private long lastNanos;
        private boolean full = true;

        Buckets(final long now) {
            this.lastNanos = now;
        }

        synchronized Admission take(final Quota q, final int messages, final long bytes, final long now) {
            final long elapsed = Math.max(0, now - lastNanos);
            lastNanos = now;
            final long msgCap = q.messagesPerSecond() * 1_000_000_000L;
            final long byteCap = q.bytesPerSecond() * 1_000_000_000L;
            if (full) {
                messageNanoTokens = msgCap;
                byteNanoTokens = byteCap;
                full = false;
            } else {
                messageNanoTokens = refill(messageNanoTokens, q.messagesPerSecond(), elapsed, msgCap);
                byteNanoTokens = refill(byteNanoTokens, q.bytesPerSecond(), elapsed, byteCap);
            }
            final long needMessages = (long) messages * 1_000_000_000L;
            final long needBytes = bytes * 1_000_000_000L;
            long waitNanos = 0;
            // A request larger than a whole second's budget passes when the bucket is full and leaves it in debt, so
            // a 4 MiB message under a 1 MiB/s quota is slowed down rather than refused forever.
            if (q.messagesPerSecond() > 0 && messageNanoTokens < Math.min(needMessages, msgCap)) {
                waitNanos = Math.max(waitNanos, (Math.min(needMessages, msgCap) - messageNanoTokens)
                        / q.messagesPerSecond());
            }
            if (q.bytesPerSecond() > 0 && byteNanoTokens < Math.min(needBytes, byteCap)) {
                waitNanos = Math.max(waitNanos, (Math.min(needBytes, byteCap) - byteNanoTokens) / q.bytesPerSecond());
            }
            if (waitNanos > 0) {
                return new Admission(false, Math.max(1, (waitNanos + 999_999) / 1_000_000));
            }
            if (q.messagesPerSecond() > 0) {
                messageNanoTokens -= needMessages;
            }
            if (q.bytesPerSecond() > 0) {
                byteNanoTokens -= needBytes;
            }
            return Admission.ADMITTED;
        }

        private static long refill(final long tokens, final long perSecond, final long elapsedNanos, final long cap) {
            if (perSecond == 0) {
                return 0;
            }
            // perSecond tokens per second = perSecond nano-tokens per nanosecond; compare before multiplying (overflow).
            final long room = cap - tokens; // more than cap while in debt
            return elapsedNanos >= room / perSecond ? cap : tokens + elapsedNanos * perSecond;
        }
    }
}
