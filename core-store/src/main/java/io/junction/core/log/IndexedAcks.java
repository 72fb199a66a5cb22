package io.junction.core.log;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Holds senders' acknowledgements until the dispatcher has indexed their records: the core contract says a completed
 * send is durable <em>and visible to consumers</em>, so a client that reads right after its send was answered (a pull
 * at the offset it was given, a query by its id) finds it. The flusher decides when records are durable (and, with
 * replication, committed); indexing follows on the dispatcher's thread, usually within microseconds, so the
 * acknowledgements of the records it has not reached yet wait here and the dispatcher completes them when it does.
 */
public final class IndexedAcks {
    /** Durable records' pending appends, acknowledged once everything below {@code end} is indexed. */
    private record Held(PendingAppend[] appends, long end) {
    }

    /** What makes durable records indexed (the dispatcher). */
    public interface Indexer {
        /** New records may be indexed: wake the indexing thread. */
        void wake();

        /** New records may be indexed and the calling thread is otherwise idle: index them here if it can. */
        void indexHereOrWake();
    }

    private final LongSupplier indexedOffset;
    private final Indexer indexer;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Held> held = new ArrayDeque<>();

    /**
     * @param indexedOffset everything below it is indexed (the dispatcher's progress)
     * @param indexer       told that new records may be indexed
     */
    public IndexedAcks(final LongSupplier indexedOffset, final Indexer indexer) {
        this.indexedOffset = indexedOffset;
        this.indexer = indexer;
    }

    /**
     * {@code batch[from, to)} is durable and ends at {@code end}: acknowledges it once indexed, at once if it already
     * is. The batch list is not kept (the appender reuses it).
     *
     * @param callerIdle whether the calling thread has nothing else queued: then it indexes the records itself
     *                   (usually; see {@link Indexer#indexHereOrWake()}) and acknowledges them at once, rather than
     *                   handing them to the indexing thread and that thread handing the acknowledgements on
     */
    void durable(final List<PendingAppend> batch, final int from, final int to, final long end,
                 final boolean callerIdle) {
        if (callerIdle) {
            indexer.indexHereOrWake();
        } else {
            indexer.wake();
        }
        if (indexedOffset.getAsLong() >= end) {
            complete(batch, from, to);
            return;
        }
        final Held h = new Held(batch.subList(from, to).toArray(new PendingAppend[0]), end);
        lock.lock();
        try {
            held.addLast(h);
        } finally {
            lock.unlock();
        }
        // The dispatcher may have passed end between the check above and the hold: it would not look again.
        indexedTo(indexedOffset.getAsLong());
    }

    /** More records are visible though no sender waits on them (a force of records written unforced): index them. */
    void visibleMoved() {
        indexer.wake();
    }

    /** The dispatcher indexed everything below {@code offset}: acknowledges what waited for it. */
    public void indexedTo(final long offset) {
        while (true) {
            final Held h;
            lock.lock();
            try {
                final Held first = held.peekFirst();
                if (first == null || first.end > offset) {
                    return;
                }
                h = held.pollFirst();
            } finally {
                lock.unlock();
            }
            for (PendingAppend p : h.appends) {
                p.complete();
            }
        }
    }

    /**
     * At close, when the dispatcher could not index everything in time: the held records are durable and recovery
     * indexes them at the next start, so their senders are told they are stored.
     */
    public void releaseAll() {
        indexedTo(Long.MAX_VALUE);
    }

    private static void complete(final List<PendingAppend> batch, final int from, final int to) {
        for (int i = from; i < to; i++) {
            batch.get(i).complete();
        }
    }
}
