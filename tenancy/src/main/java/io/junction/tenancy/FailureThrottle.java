package io.junction.tenancy;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Slows down password guessing: a source that failed to authenticate {@code maxFailures} times within a window is
 * refused outright, without checking its credentials, until the window ends. Refusing before the check also keeps a
 * guessing client from burning the broker's CPU on password hashing.
 *
 * <p>A source is a client host and the user name it presents, so one misconfigured client (a wrong secret retried by
 * an SDK forever) locks out only its own user on its own host, not every client behind the same address; and a
 * host is refused as a whole after {@value #HOST_FACTOR} times as many failures over any user names (guessing names).
 *
 * <p>Bounded: when it tracks too many sources (a scan from many addresses) it forgets the expired ones, and if none
 * have expired it forgets all, preferring a short lapse in throttling to unbounded memory.
 */
public final class FailureThrottle {

    private static final int MAX_SOURCES = 100_000;
    private static final int HOST_FACTOR = 10;

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

    /** Whether {@code user} from {@code remote} is currently refused. */
    public boolean throttled(final SocketAddress remote, final String user) {
        final String host = host(remote);
        return over(host + '\n' + user, maxFailures) || over(host, maxFailures * HOST_FACTOR);
    }

    private boolean over(final String key, final int limit) {
        final Window w = sources.get(key);
        return w != null && w.failures() >= limit && clock.getAsLong() - w.startNanos() < windowNanos;
    }

    /** Counts a failed attempt of {@code user} from {@code remote}. */
    public void failed(final SocketAddress remote, final String user) {
        final String host = host(remote);
        count(host + '\n' + user);
        count(host);
    }

    private void count(final String key) {
        final long now = clock.getAsLong();
        if (sources.size() >= MAX_SOURCES) {
            sources.values().removeIf(w -> now - w.startNanos() >= windowNanos);
            if (sources.size() >= MAX_SOURCES) {
                sources.clear();
            }
        }
        sources.merge(key, new Window(now, 1), (old, one) ->
                now - old.startNanos() >= windowNanos ? one : new Window(old.startNanos(), old.failures() + 1));
    }

    private static String host(final SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return remote == null ? "unknown" : remote.toString();
    }
}
