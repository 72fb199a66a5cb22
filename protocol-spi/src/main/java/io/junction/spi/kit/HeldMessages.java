package io.junction.spi.kit;

import io.junction.core.Messaging;
import io.junction.core.PoppedMessage;
import io.junction.core.Receipt;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The popped messages a front-end holds for its clients, and the one rule for what becomes of each: acked (consumed),
 * nacked (the client failed it: redelivered after the group's back-off, the delivery counted), given back (the client
 * left or may no longer read before consuming it: visible to the group again at once, not counted, see
 * {@link Messaging#giveBack}), dead-lettered, or kept invisible for longer.
 *
 * <p>Every change of a message's invisible time makes the core issue a new receipt handle and retire the old one,
 * while a client keeps acting with the handle it was first given. So a held message maps that first handle to the
 * latest one, and every settlement through this class acts on the latest. A message held with {@code renew} is renewed
 * (to its invisible time again) when a third of it is left, at least {@value #MIN_AHEAD_MILLIS} ms ahead, while its
 * owner is online and for at most {@value #MAX_HOLD_MILLIS} ms in all (a stuck client must not hold it forever);
 * otherwise it is let go and comes back when its invisible time ends. An owner that goes away gets everything it
 * holds given back ({@link #giveBackAll}).
 *
 * <p>Thread-safe; nothing here waits: renewals run on the scheduler the front-end passes to {@link #start} (an event
 * loop is fine) and only start asynchronous calls of the core.
 *
 * @param <O> what owns held messages (a client id, a link, a subscription)
 */
public final class HeldMessages<O> implements AutoCloseable {
    /** Renew no later than this before the message would become visible again. */
    public static final long MIN_AHEAD_MILLIS = 2_000;
    /** Longest one message is held through renewals. */
    public static final long MAX_HOLD_MILLIS = 3 * 3_600_000L;
    /** How often renewals are looked for. */
    public static final long TICK_MILLIS = 1_000;
    private static final Logger LOG = LoggerFactory.getLogger(HeldMessages.class);

    /** One held message. Guarded by itself. */
    private static final class Held<O> {
        final O owner;
        final String group;
        final long invisibleMillis;
        final boolean renew;
        final long since;
        long deadline;
        /** The handle to act on now; not yet done while a change of its invisible time runs. */
        CompletableFuture<String> latest;
        boolean released;

        Held(final O owner, final String group, final String handle, final long invisibleMillis, final boolean renew,
             final long now) {
            this.owner = owner;
            this.group = group;
            this.invisibleMillis = invisibleMillis;
            this.renew = renew;
            this.since = now;
            this.deadline = now + invisibleMillis;
            this.latest = CompletableFuture.completedFuture(handle);
        }
    }

    private final Messaging messaging;
    private final Predicate<? super O> online;
    private final LongSupplier clock;
    /** By the receipt handle the client was given. */
    private final Map<String, Held<O>> held = new ConcurrentHashMap<>();
    /**
     * Give-backs and visibility changes not yet stored (a stopping front-end waits for them: a restart then finds the
     * messages at once).
     */
    private final Set<CompletableFuture<?>> pending = ConcurrentHashMap.newKeySet();
    private ScheduledFuture<?> ticks;

    /**
     * @param online whether an owner is still connected: renewals of its messages pause while it is not
     * @param clock  milliseconds, for deadlines
     */
    public HeldMessages(final Messaging messaging, final Predicate<? super O> online, final LongSupplier clock) {
        this.messaging = messaging;
        this.online = online;
        this.clock = clock;
    }

    /** Holds without renewals ({@link #hold} with {@code renew} false only), by the wall clock. */
    public HeldMessages(final Messaging messaging) {
        this(messaging, owner -> true, System::currentTimeMillis);
    }

    /** Starts renewing, one pass every {@value #TICK_MILLIS} ms on {@code scheduler} (the front-end's own). */
    public synchronized void start(final ScheduledExecutorService scheduler) {
        if (ticks == null) {
            ticks = scheduler.scheduleWithFixedDelay(this::renewDue, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Stops renewing; held messages come back when their invisible time ends. */
    @Override
    public synchronized void close() {
        if (ticks != null) {
            ticks.cancel(false);
            ticks = null;
        }
    }

    /**
     * Holds a message just handed to {@code owner} under {@code handle}, popped with {@code invisibleMillis}; with
     * {@code renew}, keeps it invisible for as long as the owner holds it (see the class comment).
     */
    public void hold(final O owner, final String group, final String handle, final long invisibleMillis,
                     final boolean renew) {
        held.put(handle, new Held<>(owner, group, handle, invisibleMillis, renew, clock.getAsLong()));
    }

    /** Number of messages held. */
    public int size() {
        return held.size();
    }

    /** Consumed: acks the message the client knows by {@code handle} (held or not). */
    public CompletableFuture<Void> ack(final String group, final String handle) {
        return release(handle).thenCompose(h -> messaging.ack(group, h));
    }

    /** Failed by the client: redelivered after the group's back-off, counted; completes with the new handle. */
    public CompletableFuture<String> nack(final String group, final String handle) {
        return release(handle).thenCompose(h -> messaging.nack(group, h));
    }

    /** The client gave up on it: to the group's dead-letter topic now. */
    public CompletableFuture<Void> deadLetter(final String group, final String handle) {
        return release(handle).thenCompose(h -> messaging.deadLetter(group, h));
    }

    /**
     * The client moves its redelivery to {@code invisibleMillis} from now: it is held no more (the client answers for
     * it now); completes with the new handle.
     */
    public CompletableFuture<String> changeInvisibleTime(final String group, final String handle,
                                                         final long invisibleMillis) {
        return pending(release(handle).thenCompose(h -> messaging.changeInvisibleTime(group, h, invisibleMillis)),
                group);
    }

    /**
     * Keeps a held message invisible for {@code invisibleMillis} from now and goes on holding it under the same
     * first handle (the front-end needs longer than it thought, e.g. for its own retries); completes with the new
     * handle. A message not held is changed as {@link #changeInvisibleTime} would.
     */
    public CompletableFuture<String> extend(final String group, final String handle, final long invisibleMillis) {
        final Held<O> h = held.get(handle);
        if (h == null) {
            return messaging.changeInvisibleTime(group, handle, invisibleMillis);
        }
        synchronized (h) {
            final long now = clock.getAsLong();
            return change(handle, h, current -> messaging.changeInvisibleTime(h.group, current, invisibleMillis),
                    now + invisibleMillis);
        }
    }

    /** Returned unconsumed: visible to the group again at once, its delivery not counted. */
    public CompletableFuture<Void> giveBack(final String group, final String handle) {
        return pending(release(handle).thenCompose(h -> messaging.giveBack(group, h)), group);
    }

    /** Gives back messages just popped that are not for the client after all (it left, or may no longer read). */
    public void giveBack(final String group, final List<PoppedMessage> popped) {
        for (PoppedMessage m : popped) {
            giveBack(group, m.receipt());
        }
    }

    /** Gives back a message a front-end keeps the receipt of in process. */
    public CompletableFuture<Void> giveBack(final String group, final Receipt receipt) {
        return giveBack(group, receipt.sealed());
    }

    /** The owner went away: every message it holds is given back now. */
    public CompletableFuture<Void> giveBackAll(final O owner) {
        final List<CompletableFuture<Void>> back = new ArrayList<>();
        for (Iterator<Map.Entry<String, Held<O>>> it = held.entrySet().iterator(); it.hasNext(); ) {
            final Held<O> h = it.next().getValue();
            if (!h.owner.equals(owner)) {
                continue;
            }
            it.remove();
            back.add(pending(releaseHeld(h).thenCompose(handle -> messaging.giveBack(h.group, handle)), h.group));
        }
        return CompletableFuture.allOf(back.toArray(CompletableFuture[]::new));
    }

    /** Completes once every give-back and visibility change started so far is done (failed ones included). */
    public CompletableFuture<Void> pending() {
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new));
    }

    /**
     * Stops holding the message the client knows by {@code handle}; completes with the handle to act on now (the
     * given one when it was never renewed or not held at all).
     */
    public CompletableFuture<String> release(final String handle) {
        final Held<O> h = held.remove(handle);
        return h == null ? CompletableFuture.completedFuture(handle) : releaseHeld(h);
    }

    private CompletableFuture<String> releaseHeld(final Held<O> h) {
        synchronized (h) {
            h.released = true;
            return h.latest;
        }
    }

    /**
     * Follows a give-back or visibility change until it is stored; a failure (the handle expired meanwhile) is only
     * logged here.
     */
    private <T> CompletableFuture<T> pending(final CompletableFuture<T> step, final String group) {
        final CompletableFuture<Object> done = step.handle((v, failure) -> {
            if (failure != null) {
                LOG.debug("changing a message of group {} failed: {}", group, failure.toString());
            }
            return null;
        });
        pending.add(done);
        done.whenComplete((v, e) -> pending.remove(done));
        return step;
    }

    /**
     * One pass: renews every message whose invisible time ends soon, lets go of those past renewing. Completes when
     * the renewals it started are done (for tests; the scheduler does not wait).
     */
    CompletableFuture<Void> renewDue() {
        final long now = clock.getAsLong();
        final List<CompletableFuture<String>> renewals = new ArrayList<>();
        for (Iterator<Map.Entry<String, Held<O>>> it = held.entrySet().iterator(); it.hasNext(); ) {
            final Map.Entry<String, Held<O>> e = it.next();
            final Held<O> h = e.getValue();
            if (!h.renew) {
                continue;
            }
            synchronized (h) {
                if (h.released || !h.latest.isDone()) {
                    continue;
                }
                if (now >= h.deadline || now - h.since >= MAX_HOLD_MILLIS) {
                    // too late or held too long: the core redelivers it; an ack with the handle still fails right
                    it.remove();
                    continue;
                }
                if (h.deadline - now > Math.max(MIN_AHEAD_MILLIS, h.invisibleMillis / 3) || !online.test(h.owner)) {
                    continue;
                }
                renewals.add(change(e.getKey(), h,
                        current -> messaging.changeInvisibleTime(h.group, current, h.invisibleMillis),
                        now + h.invisibleMillis));
            }
        }
        return CompletableFuture.allOf(renewals.toArray(CompletableFuture[]::new)).handle((v, failure) -> null);
    }

    /**
     * Changes a held message's invisible time once its latest handle is known; called holding {@code h}'s lock. A
     * failure (acked or expired meanwhile) leaves nothing to hold: later calls use the handle that was last valid.
     * Completes as the change did, once the held message records its outcome.
     */
    private CompletableFuture<String> change(final String first, final Held<O> h,
                                             final Function<String, CompletableFuture<String>> change,
                                             final long newDeadline) {
        final CompletableFuture<String> changed = h.latest.thenCompose(current -> {
            try {
                return change.apply(current);
            } catch (RuntimeException ex) {
                return CompletableFuture.failedFuture(ex);
            }
        });
        final CompletableFuture<String> previous = h.latest;
        h.latest = changed.handle((handle, failure) -> {
            synchronized (h) {
                if (failure == null) {
                    h.deadline = newDeadline;
                    return handle;
                }
                LOG.debug("changing the invisible time of a message of {} in {} failed: {}", h.owner, h.group,
                        failure.toString());
                held.remove(first, h);
                return previous.getNow(first);
            }
        });
        // Returning `changed` itself woke a caller waiting on it before the bookkeeping above ran, and a renewal pass
        // at that moment skipped the message as still changing (a test saw a message held past its longest hold).
        return h.latest.thenCompose(recorded -> changed);
    }
}
