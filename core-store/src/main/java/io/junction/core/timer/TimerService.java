package io.junction.core.timer;

import io.junction.core.PullResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.MetadataFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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
 */
public final class TimerService implements AutoCloseable {
    /** The system topic parked timer records live in (one queue, never listed, not writable by clients). */
    public static final String TOPIC = "rmq_sys_wheel_timer";
    /** Name of the progress file (under the store's config directory): the watermark, one int64. */
    public static final String PROGRESS_FILE = "timer-progress.dat";
    /** Progress file format version. */
    public static final int PROGRESS_VERSION = 1;

    private static final Logger LOG = LoggerFactory.getLogger(TimerService.class);
    private static final long TICK_MILLIS = 5;
    private static final long PERSIST_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long RETRY_AFTER_MILLIS = 1000;
    private static final int LOAD_BATCH = 256;
    private static final int MAX_LOAD_PER_TICK = 32 * 1024;
    private static final int MAX_FIRE_PER_TICK = 32 * 1024;

    private final TimerLog log;
    private final LongSupplier clock;
    private final MetadataFile progress;
    private final TimerWheel wheel;
    /** Timer-queue offsets below this were in the queue at start: they may have fired before a restart. */
    private final long recoveredEnd;
    private final ScheduledExecutorService ticker;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ConcurrentLinkedQueue<Completion> completions = new ConcurrentLinkedQueue<>();
    private long persistedWatermark;
    /** A watermark waiting for the log to be forced up to {@link #stagedLogEnd} before it may be saved. */
    private long stagedWatermark = -1;
    private long stagedLogEnd;
    private long lastPersistNanos;
    private long fired;
    private long skippedAsDelivered;

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
        this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "junction-timer");
            t.setDaemon(true);
            return t;
        });
        if (recoveredEnd > start) {
            LOG.info("Timers: reloading timer queue {}..{} (watermark {})", start, recoveredEnd, saved);
        }
    }

    private static Optional<Long> readWatermark(final MetadataFile file) {
        return file.read().map(ByteBuffer::getLong);
    }

    /** Starts the tick thread. */
    public void start() {
        ticker.scheduleWithFixedDelay(this::tickQuietly, 0, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.error("Timer tick failed; will retry", e);
        }
    }

    /** A finished delivery attempt, handed from the append path's thread to the tick. */
    private record Completion(TimerWheel.Timer timer, Throwable failure) {
    }

    /** One round: apply finished deliveries, load new timer records, fire the due ones, save the watermark at times. */
    synchronized void tick() {
        applyCompletions();
        load();
        fireDue();
        if (System.nanoTime() - lastPersistNanos >= PERSIST_EVERY_NANOS) {
            persist();
        }
    }

    private void load() {
        final long end = log.timerQueueMaxOffset();
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
                wheel.add(new TimerWheel.Timer(TimerMessages.deliverAt(m), m.queueOffset(), m.commitLogOffset(),
                        m.queueOffset() < recoveredEnd));
                loaded++;
            }
            wheel.skipTo(Math.max(wheel.loadedUpTo(), Math.min(r.nextOffset(), end)));
        }
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
        ticker.shutdown();
        try {
            ticker.awaitTermination(10, TimeUnit.SECONDS);
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
