package io.junction.core.timer;

import io.junction.core.PullResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.MetadataFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires timers: follows the timer queue into the {@link TimerWheel}, delivers the due ones through the normal append
 * path, and keeps the fire-once watermark in a progress file. See the package documentation for the design.
 *
 * <p>Threading: one tick thread does all loading, reading and firing; delivery completions arrive on the appender's
 * or flusher's thread, which must never wait for the tick, so they are only queued there and applied by the next tick. Every
 * decision about "due" reads the injected store clock, so tests drive it with a fake clock.
 *
 * <p>The tick thread sleeps until the earliest timer is due, or until new timer records are indexed ({@link #wake}),
 * and never longer than {@link #MAX_SLEEP_MILLIS}. Ticking every 5 ms whatever the work cost an idle broker 1.2 % of
 * a core (benchmarks/README.md, "Idle CPU").
 */
public final class TimerService implements AutoCloseable {
    /** The system topic parked timer records live in (one queue, never listed, not writable by clients). */
    public static final String TOPIC = "rmq_sys_wheel_timer";
    /** Name of the progress file (under the store's config directory): the watermark, one int64. */
    public static final String PROGRESS_FILE = "timer-progress.dat";
    /** Progress file format version. */
    public static final int PROGRESS_VERSION = 1;

    private static final Logger LOG = LoggerFactory.getLogger(TimerService.class);
    /** How soon the tick runs again while the timer queue is read behind its end (or cannot be read further). */
    private static final long TICK_MILLIS = 5;
    /**
     * Longest sleep between ticks: bounds how late a persisted watermark and a timer are when the store clock moves
     * other than with the machine's (a fake clock in tests, a clock step).
     */
    private static final long MAX_SLEEP_MILLIS = 100;
    private static final long PERSIST_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long RETRY_AFTER_MILLIS = 1000;
    private static final int LOAD_BATCH = 256;
    private static final int MAX_LOAD_PER_TICK = 32 * 1024;
    private static final int MAX_FIRE_PER_TICK = 32 * 1024;
    /** A due timer whose recall marker is still being stored waits this long before it is looked at again. */
    private static final long RECALL_PENDING_RETRY_MILLIS = 10;
    /** Recalls of timers that never showed up (fired before a restart, or deleted) are forgotten this long after. */
    private static final long RECALL_FORGET_AFTER_MILLIS = 60_000;

    private final TimerLog log;
    private final LongSupplier clock;
    private final MetadataFile progress;
    private final TimerWheel wheel;
    /** Timer-queue offsets below this were in the queue at start: they may have fired before a restart. */
    private final long recoveredEnd;
    private final Thread ticker;
    private volatile boolean running = true;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ConcurrentLinkedQueue<Completion> completions = new ConcurrentLinkedQueue<>();
    /**
     * Recalled timers by {@link TimerMessages#recallKey}. A recall's future completes once its marker is durable;
     * until then the timer is held back, and it is fired after all if storing the marker failed. Written by recalls
     * (under this service's lock), by marker-store completions (lock-free) and by the tick.
     */
    private final Map<String, Recall> recalled = new ConcurrentHashMap<>();
    private long persistedWatermark;
    /** A watermark waiting for the log to be forced up to {@link #stagedLogEnd} before it may be saved. */
    private long stagedWatermark = -1;
    private long stagedLogEnd;
    private long lastPersistNanos;
    private long fired;
    private long skippedAsDelivered;
    private long recalledCount;

    /**
     * @param log      the store, as far as timers need it (everything already recovered and indexed)
     * @param clock    the store clock (epoch ms)
     * @param progress where the watermark is kept
     */
    public TimerService(final TimerLog log, final LongSupplier clock, final MetadataFile progress) {
        this.log = log;
        this.clock = clock;
        this.progress = progress;
        final long min = log.timerQueueMinOffset();
        final long max = log.timerQueueMaxOffset();
        final long saved = readWatermark(progress).orElse(min);
        if (saved < min) {
            LOG.warn("Timer progress {} is below the timer queue's start {}: timers in between were deleted by "
                    + "retention before they fired", saved, min);
        } else if (saved > max) {
            LOG.warn("Timer progress {} is beyond the timer queue's end {} (the log was cut or replaced); "
                    + "continuing from the end", saved, max);
        }
        final long start = Math.min(Math.max(saved, min), max);
        this.wheel = new TimerWheel(start);
        this.recoveredEnd = max;
        this.persistedWatermark = saved;
        this.ticker = new Thread(this::run, "junction-timer");
        this.ticker.setDaemon(true);
        if (recoveredEnd > start) {
            LOG.info("Timers: reloading timer queue {}..{} (watermark {})", start, recoveredEnd, saved);
        }
    }

    private static Optional<Long> readWatermark(final MetadataFile file) {
        return file.read().map(ByteBuffer::getLong);
    }

    /** Starts the tick thread. */
    public void start() {
        ticker.start();
    }

    /** New records are indexed in the timer queue ({@link #TOPIC}): load them now rather than after a sleep. */
    public void wake() {
        LockSupport.unpark(ticker);
    }

    private void run() {
        while (running) {
            long sleepMillis;
            try {
                sleepMillis = tick();
            } catch (RuntimeException e) {
                LOG.error("Timer tick failed; will retry", e);
                sleepMillis = TICK_MILLIS;
            }
            if (sleepMillis > 0 && running) {
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(sleepMillis));
            }
        }
    }

    /** A recalled timer: its delivery time and whether (once done) its marker is durable. */
    private record Recall(long deliverAt, CompletableFuture<Void> stored) {
    }

    /** A finished delivery attempt, handed from the append path's thread to the tick. */
    private record Completion(TimerWheel.Timer timer, Throwable failure) {
    }

    /**
     * One round: apply finished deliveries, load new timer records, fire the due ones, save the watermark at times.
     * Returns how long the tick thread may sleep before the next round.
     */
    synchronized long tick() {
        applyCompletions();
        final boolean loadedSome = load();
        // While the queue found at start is still being reloaded, fire nothing: a recall marker further on must be
        // known before the timer it cancels comes due (unless loading is stuck, which must not stop every timer).
        if (!loadedSome || wheel.loadedUpTo() >= recoveredEnd) {
            fireDue();
        }
        if (System.nanoTime() - lastPersistNanos >= PERSIST_EVERY_NANOS) {
            persist();
            forgetStaleRecalls();
        }
        return sleepAfterTick();
    }

    /**
     * Until the next round has work: the earliest timer's time. Finished deliveries wait for that round; they only move
     * the watermark, which is saved once a second.
     */
    private long sleepAfterTick() {
        if (wheel.loadedUpTo() < log.timerQueueMaxOffset()) {
            return TICK_MILLIS; // more to load than one round takes, or records not readable yet
        }
        final long due = wheel.nextDue();
        if (due == Long.MAX_VALUE) {
            return MAX_SLEEP_MILLIS;
        }
        return Math.max(0, Math.min(MAX_SLEEP_MILLIS, due - clock.getAsLong()));
    }

    /** Loads new timer records (and recall markers); true when it got any further. */
    private boolean load() {
        final long end = log.timerQueueMaxOffset();
        final long start = wheel.loadedUpTo();
        int loaded = 0;
        while (wheel.loadedUpTo() < end && loaded < MAX_LOAD_PER_TICK) {
            final long from = wheel.loadedUpTo();
            final PullResult r = log.readTimerQueue(from, LOAD_BATCH);
            if (r.nextOffset() <= from && r.messages().isEmpty()) {
                if (r.minOffset() > from) {
                    LOG.warn("Timer records {}..{} were deleted before they fired", from, r.minOffset());
                    wheel.skipTo(Math.min(r.minOffset(), end));
                    continue;
                }
                break;
            }
            for (StoredMessage m : r.messages()) {
                final String recalledId = TimerMessages.recalledId(m);
                if (recalledId != null) {
                    final long at = TimerMessages.deliverAt(m);
                    recalled.putIfAbsent(TimerMessages.recallKey(m.property(MessageProperties.REAL_TOPIC),
                            recalledId, at), new Recall(at, CompletableFuture.completedFuture(null)));
                    wheel.skipTo(m.queueOffset() + 1);
                } else {
                    wheel.add(new TimerWheel.Timer(TimerMessages.deliverAt(m), m.queueOffset(), m.commitLogOffset(),
                            m.queueOffset() < recoveredEnd));
                }
                loaded++;
            }
            wheel.skipTo(Math.max(wheel.loadedUpTo(), Math.min(r.nextOffset(), end)));
        }
        return wheel.loadedUpTo() > start;
    }

    private void fireDue() {
        final long now = clock.getAsLong();
        for (TimerWheel.Timer t : wheel.pollDue(now, MAX_FIRE_PER_TICK)) {
            final StoredMessage parked = log.readRecord(t.logOffset());
            final Message message = parked == null ? null : TimerMessages.unpark(parked);
            if (message == null) {
                LOG.warn("Timer record at log offset {} is gone or not a timer record; dropped", t.logOffset());
                wheel.finish(t.queueOffset());
                continue;
            }
            if (!recalled.isEmpty() && message.uniqueId() != null) {
                final String key = TimerMessages.recallKey(message.topic(), message.uniqueId(),
                        TimerMessages.deliverAt(parked));
                final Recall r = recalled.get(key);
                if (r != null && !r.stored().isDone()) {
                    wheel.retry(t, now + RECALL_PENDING_RETRY_MILLIS);
                    continue;
                }
                if (r != null && !r.stored().isCompletedExceptionally()) {
                    recalled.remove(key);
                    recalledCount++;
                    wheel.finish(t.queueOffset());
                    continue;
                }
            }
            if (t.recovered() && message.uniqueId() != null && log.deliveredAfter(message.topic(),
                    message.uniqueId(), TimerMessages.deliverAt(parked), t.logOffset())) {
                skippedAsDelivered++;
                wheel.finish(t.queueOffset());
                continue;
            }
            inFlight.incrementAndGet();
            log.deliver(message).whenComplete((ok, failure) -> {
                completions.add(new Completion(t, failure));
                inFlight.decrementAndGet();
            });
        }
    }

    private void applyCompletions() {
        for (Completion c; (c = completions.poll()) != null; ) {
            delivered(c.timer(), c.failure());
        }
    }

    private void delivered(final TimerWheel.Timer timer, final Throwable failure) {
        if (failure == null) {
            fired++;
            wheel.finish(timer.queueOffset());
        } else if (isPermanent(StoreException.errorOf(failure))) {
            LOG.warn("Timer at timer-queue offset {} cannot be delivered; dropped: {}", timer.queueOffset(),
                    failure.getMessage());
            wheel.finish(timer.queueOffset());
        } else {
            LOG.warn("Timer at timer-queue offset {} failed to deliver; retrying: {}", timer.queueOffset(),
                    failure.getMessage());
            wheel.retry(timer, clock.getAsLong() + RETRY_AFTER_MILLIS);
        }
    }

    private static boolean isPermanent(final StoreError error) {
        return error == StoreError.TOPIC_NOT_FOUND || error == StoreError.PERMISSION_DENIED
                || error == StoreError.ILLEGAL_MESSAGE || error == StoreError.ILLEGAL_ARGUMENT
                || error == StoreError.MESSAGE_TOO_LARGE || error == StoreError.QUEUE_NOT_FOUND;
    }

    /**
     * Saves the watermark in two steps so it never runs ahead of the disk: a watermark is staged together with the
     * log's write position at that moment (every delivered copy it accounts for lies below), and saved only once the
     * log is forced past that position. Under ASYNC flush a delivered copy can be acknowledged before it is forced;
     * saving the watermark early would lose that timer in a crash.
     */
    private void persist() {
        lastPersistNanos = System.nanoTime();
        if (stagedWatermark >= 0 && log.logFlushedOffset() >= stagedLogEnd) {
            write(stagedWatermark);
            stagedWatermark = -1;
        }
        final long mark = wheel.watermark();
        if (mark != persistedWatermark && stagedWatermark < 0) {
            stagedLogEnd = log.logWriteOffset();
            stagedWatermark = mark;
        }
    }

    private void write(final long mark) {
        if (mark == persistedWatermark) {
            return;
        }
        try {
            progress.write(ByteBuffer.allocate(Long.BYTES).putLong(mark).array());
            persistedWatermark = mark;
        } catch (IOException e) {
            LOG.error("Saving timer progress failed (a restart reloads more timers); will retry", e);
        }
    }

    /**
     * Cancels the timer of {@code parked} (a record of the timer queue, not a marker): it will never be delivered.
     * Stores a recall marker so the recall outlives a restart; completes once that is durable.
     *
     * @throws StoreException ILLEGAL_ARGUMENT (in the future) when the delivery time has come already
     */
    public CompletableFuture<Void> recall(final StoredMessage parked) {
        final String topic = parked.property(MessageProperties.REAL_TOPIC);
        final String uniqueId = parked.uniqueId();
        final long deliverAt = TimerMessages.deliverAt(parked);
        final String key = TimerMessages.recallKey(topic, uniqueId, deliverAt);
        final Recall recall;
        synchronized (this) {
            // The tick fires under this lock: a timer not yet due here has not fired and will see the recall.
            if (deliverAt <= clock.getAsLong()) {
                return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_ARGUMENT,
                        "message " + uniqueId + " was due at " + deliverAt + ": too late to recall it"));
            }
            final Recall earlier = recalled.get(key);
            if (earlier != null && !earlier.stored().isCompletedExceptionally()) {
                return earlier.stored();
            }
            recall = new Recall(deliverAt, new CompletableFuture<>());
            recalled.put(key, recall);
        }
        CompletableFuture<?> stored;
        try {
            stored = log.appendToTimerQueue(TimerMessages.recallMarker(topic, uniqueId, deliverAt));
        } catch (RuntimeException e) {
            stored = CompletableFuture.failedFuture(e);
        }
        stored.whenComplete((r, failure) -> {
            if (failure != null) {
                recalled.remove(key, recall);
                recall.stored().completeExceptionally(failure);
            } else {
                recall.stored().complete(null);
            }
        });
        return recall.stored();
    }

    /** Drops recalls whose timer never came (it fired before a restart, or its record is gone). */
    private void forgetStaleRecalls() {
        if (recalled.isEmpty()) {
            return;
        }
        final long before = clock.getAsLong() - RECALL_FORGET_AFTER_MILLIS;
        recalled.values().removeIf(r -> r.deliverAt() < before && r.stored().isDone());
    }

    /** Timers recalled (not delivered) since start. */
    public synchronized long recalledCount() {
        return recalledCount;
    }

    /** Timers loaded and waiting for their time. */
    public synchronized int pendingCount() {
        return wheel.pendingCount();
    }

    /** Timers delivered since start. */
    public synchronized long firedCount() {
        return fired;
    }

    /** Recovered timers found already delivered before the restart (not delivered again). */
    public synchronized long skippedAsDeliveredCount() {
        return skippedAsDelivered;
    }

    /** The smallest timer-queue offset not yet fired for good. */
    public synchronized long watermark() {
        return wheel.watermark();
    }

    /**
     * Stops ticking and waits (up to 10 s) for deliveries in flight; the append path must still run. Call
     * {@link #saveProgress()} once the log is forced.
     */
    @Override
    public void close() {
        running = false;
        LockSupport.unpark(ticker);
        try {
            if (ticker.isAlive()) {
                ticker.join(TimeUnit.SECONDS.toMillis(10));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (inFlight.get() > 0 && System.nanoTime() < deadline && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        synchronized (this) {
            applyCompletions();
        }
    }

    /**
     * Saves the watermark as far as the forced log allows (at close, after the log's last force: all of it). Two
     * rounds of the staging in {@link #persist()}: the first saves what was staged, the second what is current.
     */
    public synchronized void saveProgress() {
        applyCompletions();
        persist();
        persist();
    }
}
