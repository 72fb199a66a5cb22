package io.junction.core.queue;

import io.junction.core.filter.TagFilter;
import io.junction.core.index.MessageIndex;
import io.junction.core.log.CommitLog;
import io.junction.core.log.DispatchInfo;
import io.junction.core.log.RecordCodec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the log and indexes every visible record: its consume-queue entry, its id and key index entries; then
 * tells the {@link ArrivalListener} so parked long polls on that queue wake up.
 *
 * <p>Passes usually run on the dispatcher's own thread. The thread that just made records visible (the appender in
 * ASYNC mode, the flusher in SYNC mode) may run a pass itself when it has nothing else queued and no pass is under
 * way ({@link #indexHereOrWake()}): at low rates every record otherwise paid for one more thread hand-over (a futex
 * wake-up and a context switch, and on a busy machine a wait for a core) before its sender was answered and its
 * parked readers woken. One pass at a time, whichever thread runs it ({@link #passLock}).
 *
 * <p>Indexing the same record twice writes the same queue entry (the record carries its queue offset) and skips the
 * id index, which is what lets recovery simply re-dispatch from the checkpoint.
 */
// close() waits for the thread to end and lets an interrupt of the stopping thread through ("try" lint).
@SuppressWarnings("try")
public final class Dispatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    /** Told when a queue got new entries. */
    @FunctionalInterface
    public interface ArrivalListener {
        void arrived(String topic, int queueId);
    }

    /**
     * Longest park with nothing to index. Whatever makes records visible wakes this thread ({@link #wake},
     * {@link #indexHereOrWake}): the appender or flusher for what it wrote or forced, a replica for what its group
     * committed. The bound is a safety net only; parks of 5 ms cost an idle broker 1 % of a core (benchmarks/README.md,
     * "Idle CPU").
     */
    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final CommitLog log;
    private final LongSupplier visibleOffset;
    private final ConsumeQueueStore queues;
    private final MessageIndex index;
    private final Thread thread;
    private final Arrivals arrivals;
    private final LongConsumer indexedTo;
    /** Held for a pass; the lock also hands the pass state (queues, index, arrivals) from one thread to the next. */
    private final ReentrantLock passLock = new ReentrantLock();
    private volatile long dispatchedOffset;
    private volatile boolean running = true;
    /** Set while passes fail: then only the dispatcher's thread retries (once a second), no caller's thread. */
    private volatile boolean failing;
    private IOException pendingFailure;

    /** @param indexedTo told, after each pass, that everything below its offset is indexed */
    public Dispatcher(final CommitLog log, final LongSupplier visibleOffset, final ConsumeQueueStore queues,
                      final MessageIndex index, final ArrivalListener listener, final LongConsumer indexedTo,
                      final long startOffset) {
        this.indexedTo = indexedTo;
        this.log = log;
        this.visibleOffset = visibleOffset;
        this.queues = queues;
        this.index = index;
        this.dispatchedOffset = startOffset;
        this.arrivals = new Arrivals(listener);
        this.thread = new Thread(this::run, "junction-dispatcher");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /** Everything below this log offset is indexed. */
    public long dispatchedOffset() {
        return dispatchedOffset;
    }

    /** Sets where dispatching continues; before {@link #start()} only (recovery found the log's end). */
    public void resetTo(final long offset) {
        dispatchedOffset = offset;
    }

    /** New records are visible: index them soon. */
    public void wake() {
        LockSupport.unpark(thread);
    }

    /** Indexes one record; used by recovery on the opening thread and by the dispatcher thread. */
    public DispatchInfo index(final ByteBuffer segmentView, final int position) throws IOException {
        final DispatchInfo info = RecordCodec.dispatchInfo(segmentView, position);
        queues.put(info.topic(), info.queueId(), info.queueOffset(), info.physicalOffset(), info.size(),
                TagFilter.tagHash(info.tag()));
        index.add(info);
        return info;
    }

    /**
     * New records are visible and the calling thread has nothing else queued: indexes them here, unless a pass is
     * under way on another thread (that pass looks again at the visible end before it parks) or passes are failing;
     * then wakes the dispatcher's thread as {@link #wake()} does.
     */
    public void indexHereOrWake() {
        if (!running || failing || passLock.isHeldByCurrentThread() || !passLock.tryLock()) {
            wake();
            return;
        }
        try {
            if (pass() == Pass.FAILED) {
                wake();
            }
        } finally {
            passLock.unlock();
        }
    }

    /** What a pass did. */
    private enum Pass { IDLE, INDEXED, FAILED }

    private void run() {
        while (running) {
            final Pass done;
            passLock.lock();
            try {
                done = pass();
            } finally {
                passLock.unlock();
            }
            if (done == Pass.IDLE) {
                LockSupport.parkNanos(this, IDLE_PARK_NANOS);
            } else if (done == Pass.FAILED) {
                LockSupport.parkNanos(this, TimeUnit.SECONDS.toNanos(1));
            } else {
                failing = false;
            }
        }
    }

    /** Indexes from where the last pass ended up to the visible end (under {@link #passLock}). */
    private Pass pass() {
        final long target = visibleOffset.getAsLong();
        final long from = dispatchedOffset;
        if (from >= target) {
            return Pass.IDLE;
        }
        final long reached = log.scan(from, target, (view, pos, size) -> {
            if (pendingFailure != null) {
                return;
            }
            try {
                final DispatchInfo info = index(view, pos);
                arrivals.add(info.topic(), info.queueId());
            } catch (IOException | RuntimeException e) {
                pendingFailure = e instanceof IOException io ? io : new IOException(e);
            }
        });
        arrivals.tellAll();
        if (pendingFailure != null) {
            LOG.error("Indexing failed at or after log offset {}; retrying in 1 s", from, pendingFailure);
            pendingFailure = null;
            failing = true;
            return Pass.FAILED;
        }
        dispatchedOffset = reached;
        indexedTo.accept(reached);
        return Pass.INDEXED;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        LockSupport.unpark(thread);
        thread.join(10_000);
    }
}
