package io.junction.tenancy;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Slows down password guessing: a source (client host) that failed to authenticate {@code maxFailures} times within
 * a window is refused outright, without checking its credentials, until the window ends. Refusing before the check
 * also keeps a guessing client from burning the broker's CPU on password hashing.
 *
 * <p>Bounded: when it tracks too many sources (a scan from many addresses) it forgets the expired ones, and if none
 * have expired it forgets all, preferring a short lapse in throttling to unbounded memory.
 */
public final class FailureThrottle {

    private static final int MAX_SOURCES = 100_000;

    private record Window(long startNanos, int failures) {
    }

    private final int maxFailures;
    private final long windowNanos;
    private final LongSupplier clock;
    private final ConcurrentHashMap<String, Window> sources = new ConcurrentHashMap<>();

    public FailureThrottle(final int maxFailures, final long windowMillis, final LongSupplier nanoClock) {
        if (maxFailures < 1 || windowMillis < 1) {
            throw new IllegalArgumentException("maxFailures and windowMillis must be positive");
        }
        this.maxFailures = maxFailures;
        this.windowNanos = windowMillis * 1_000_000L;
        this.clock = nanoClock;
    }

    /** Whether {@code remote} is currently refused. */
    public boolean throttled(final SocketAddress remote) {
        final Window w = sources.get(source(remote));
        return w != null && w.failures() >= maxFailures && clock.getAsLong() - w.startNanos() < windowNanos;
    }

    /** Counts a failed attempt from {@code remote}. */
    public void failed(final SocketAddress remote) {
        final long now = clock.getAsLong();
        if (sources.size() >= MAX_SOURCES) {
            sources.values().removeIf(w -> now - w.startNanos() >= windowNanos);
            if (sources.size() >= MAX_SOURCES) {
                sources.clear();
            }
        }
        sources.merge(source(remote), new Window(now, 1), (old, one) ->
                now - old.startNanos() >= windowNanos ? one : new Window(old.startNanos(), old.failures() + 1));
    }

    private static String source(final SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return remote == null ? "unknown" : remote.toString();
    }
}
