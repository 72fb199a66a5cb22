package io.junction.grpc;

import io.junction.core.Messaging;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the messages a push consumer received with {@code auto_renew} invisible while it still holds them. The 5.x
 * PushConsumer never renews by itself: it asks the server to (RocketMQ's proxy does the same), then acks, nacks or
 * dead-letters with the receipt handle it was first given.
 *
 * <p>Each renewal changes the handle (the core's old one stops working), so every tracked message maps its first
 * handle to the latest one, and ack / ChangeInvisibleDuration / dead-lettering {@link #release} the mapping first and
 * act on the latest handle. A renewal runs when a third of the invisible time is left (at least
 * {@link #MIN_AHEAD_MILLIS}), while the client's Telemetry stream is up and for at most {@link #MAX_HOLD_MILLIS};
 * otherwise the message is left to come back when its invisible time ends. A client that terminates gets its
 * remaining messages (received, not yet consumed) redelivered at once.
 */
final class ReceiptRenewals implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReceiptRenewals.class);
    /** Renew no later than this before the message would become visible again. */
    static final long MIN_AHEAD_MILLIS = 2_000;
    /** Longest a consumer may hold one message through renewals (a stuck listener must not hold it forever). */
    static final long MAX_HOLD_MILLIS = 3 * 3_600_000L;
    static final long TICK_MILLIS = 1_000;

    /** One message held by a push consumer. Guarded by itself. */
    private static final class Held {
        final String clientId;
        final String group;
        final long invisibleMillis;
        final long since;
        long deadline;
        /** The handle to act on now; not yet done while a renewal runs. */
        CompletableFuture<String> latest;
        boolean released;

        Held(final String clientId, final String group, final String handle, final long invisibleMillis,
             final long now) {
            this.clientId = clientId;
            this.group = group;
            this.invisibleMillis = invisibleMillis;
            this.since = now;
            this.deadline = now + invisibleMillis;
            this.latest = CompletableFuture.completedFuture(handle);
        }
    }

    private final Messaging messaging;
    private final Predicate<String> online;
    private final LongSupplier clock;
    /** By the receipt handle the consumer was given. */
    private final Map<String, Held> held = new ConcurrentHashMap<>();
    private ScheduledExecutorService timer;

    /**
     * @param online whether a client (by id) is still connected; renewals of an offline client's messages pause
     */
    ReceiptRenewals(final Messaging messaging, final Predicate<String> online, final LongSupplier clock) {
        this.messaging = messaging;
        this.online = online;
        this.clock = clock;
    }

    synchronized void start() {
        if (timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                final Thread t = new Thread(r, "grpc-receipt-renewals");
                t.setDaemon(true);
                return t;
            });
            timer.scheduleWithFixedDelay(this::renewDue, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public synchronized void close() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }

    /** Starts renewing a message just handed to {@code clientId} with {@code handle}. */
    void track(final String clientId, final String group, final String handle, final long invisibleMillis) {
        held.put(handle, new Held(clientId, group, handle, invisibleMillis, clock.getAsLong()));
    }

    /** Number of messages being renewed (for tests and metrics). */
    int size() {
        return held.size();
    }

    /**
     * Stops renewing the message the consumer knows by {@code handle}; completes with the handle to act on now (the
     * given one when it was never renewed or not tracked at all).
     */
    CompletableFuture<String> release(final String handle) {
        final Held h = held.remove(handle);
        if (h == null) {
            return CompletableFuture.completedFuture(handle);
        }
        synchronized (h) {
            h.released = true;
            return h.latest;
        }
    }

    /** A client terminated: its held messages (received, never consumed) go back to the group now. */
    void releaseClient(final String clientId) {
        for (Iterator<Map.Entry<String, Held>> it = held.entrySet().iterator(); it.hasNext(); ) {
            final Map.Entry<String, Held> e = it.next();
            final Held h = e.getValue();
            if (!h.clientId.equals(clientId)) {
                continue;
            }
            it.remove();
            final CompletableFuture<String> latest;
            synchronized (h) {
                h.released = true;
                latest = h.latest;
            }
            latest.thenCompose(handle -> messaging.changeInvisibleTime(h.group, handle, 0))
                    .whenComplete((v, failure) -> {
                        if (failure != null) {
                            LOG.debug("message of terminated client {} not given back: {}", clientId,
                                    failure.toString());
                        }
                    });
        }
    }

    /** One pass: renews every message whose invisible time ends soon, drops those past renewing. */
    void renewDue() {
        final long now = clock.getAsLong();
        for (Iterator<Map.Entry<String, Held>> it = held.entrySet().iterator(); it.hasNext(); ) {
            final Map.Entry<String, Held> e = it.next();
            final Held h = e.getValue();
            synchronized (h) {
                if (h.released || !h.latest.isDone()) {
                    continue;
                }
                if (now >= h.deadline || now - h.since >= MAX_HOLD_MILLIS) {
                    // too late or held too long: the core redelivers it; an ack with the handle still fails right
                    it.remove();
                    continue;
                }
                if (h.deadline - now > Math.max(MIN_AHEAD_MILLIS, h.invisibleMillis / 3) || !online.test(h.clientId)) {
                    continue;
                }
                renew(e.getKey(), h, now);
            }
        }
    }

    /** Called holding {@code h}'s lock with its latest handle known. */
    private void renew(final String first, final Held h, final long now) {
        final String current = h.latest.join();
        CompletableFuture<String> renewed;
        try {
            renewed = messaging.changeInvisibleTime(h.group, current, h.invisibleMillis);
        } catch (RuntimeException ex) {
            renewed = CompletableFuture.failedFuture(ex);
        }
        h.latest = renewed.handle((handle, failure) -> {
            synchronized (h) {
                if (failure == null) {
                    h.deadline = now + h.invisibleMillis;
                    return handle;
                }
                // acked or expired meanwhile: nothing left to renew; later calls use the handle that was last valid
                LOG.debug("renewal of a message of {} in {} failed: {}", h.clientId, h.group, failure.toString());
                held.remove(first, h);
                return current;
            }
        });
    }
}
