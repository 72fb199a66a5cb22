package io.junction.cluster;

import io.junction.core.log.CommitLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Turns the leader appender's written ranges into Raft entries, a few at a time: at most {@code maxInFlight} entries
 * wait for their commit; ranges written meanwhile are held and then proposed together as one entry, which commits them
 * all. A Raft entry costs about the same CPU whatever it holds (three replicas' RPCs, log writes, thread hand-offs:
 * about 1.5 ms of CPU per entry measured, see the README), while sync senders keep only a few messages per appender
 * batch: one entry per batch made the group CPU-bound on entries, not on messages. Holding the ranges while the window
 * is full makes each entry carry the messages of every batch written during the round trip before it (group commit),
 * and the window keeps a few entries in flight so the next one is already under way when one commits.
 *
 * <p>Ranges arrive contiguous and in log order (the appender's thread) and are proposed in that order. A failed entry
 * fails every range held and refuses the later ones: a range proposed after a gap could never be applied; the appender
 * fences its store on the first failure anyway, and only reopening the store (a new instance of this class) lifts it.
 * Entries complete on Ratis' threads, which must not take this object's lock (Ratis may hold its own lock while
 * failing them, and a proposal under this lock waits for Ratis' lock): the next proposal is made on {@code
 * proposer}.
 */
final class RangeProposals {
    /** Proposes a log range as one or more entries; completes once all are committed. */
    interface Proposer {
        CompletableFuture<Void> propose(CommitLog log, long from, long to);
    }

    private final Proposer proposer;
    private final Executor proposing;
    private final int maxInFlight;
    private final long flushBytes;
    /** Entries proposed and not yet committed or failed (guarded by this). */
    private int inFlight;
    /** The held range [heldFrom, heldTo) of {@code held}'s senders, or heldFrom = -1 (guarded by this). */
    private long heldFrom = -1;
    private long heldTo;
    private CommitLog heldLog;
    private List<CompletableFuture<Void>> held = new ArrayList<>();
    /** Why later ranges are refused: a failed entry, or the store reopened (guarded by this). */
    private Throwable refused;

    /**
     * @param proposing  where the held range is proposed once an entry commits (never one of Ratis' threads)
     * @param flushBytes a held range this large is proposed even with the window full (it makes a full entry anyway)
     */
    RangeProposals(final Proposer proposer, final Executor proposing, final int maxInFlight, final long flushBytes) {
        this.proposer = proposer;
        this.proposing = proposing;
        this.maxInFlight = maxInFlight;
        this.flushBytes = flushBytes;
    }

    /** Replicates {@code [from, to)} of {@code log}: the future completes once an entry holding it is committed. */
    synchronized CompletableFuture<Void> offer(final CommitLog log, final long from, final long to) {
        if (refused != null) {
            return CompletableFuture.failedFuture(refused);
        }
        if (heldFrom >= 0 && (from != heldTo || log != heldLog)) {
            return CompletableFuture.failedFuture(new IllegalStateException("range " + from + ".." + to
                    + " does not continue the held range " + heldFrom + ".." + heldTo));
        }
        final CompletableFuture<Void> committed = new CompletableFuture<>();
        if (heldFrom < 0) {
            heldFrom = from;
            heldLog = log;
        }
        heldTo = to;
        held.add(committed);
        if (inFlight < maxInFlight || heldTo - heldFrom >= flushBytes) {
            proposeHeld();
        }
        return committed;
    }

    /** Proposes the held range as the next entry (held under this object's lock). */
    private void proposeHeld() {
        final List<CompletableFuture<Void>> senders = held;
        held = new ArrayList<>();
        final long from = heldFrom;
        heldFrom = -1;
        inFlight++;
        final CompletableFuture<Void> entry;
        try {
            entry = proposer.propose(heldLog, from, heldTo);
        } catch (RuntimeException e) {
            inFlight--;
            refuse(e);
            senders.forEach(s -> s.completeExceptionally(e));
            return;
        } finally {
            heldLog = null;
        }
        entry.whenComplete((ok, failure) -> {
            // Ratis' thread: answer the senders here, take the lock on the proposing thread only.
            if (failure == null) {
                senders.forEach(s -> s.complete(null));
            } else {
                senders.forEach(s -> s.completeExceptionally(failure));
            }
            try {
                proposing.execute(() -> committed(failure));
            } catch (RejectedExecutionException e) {
                // The node is closing: nothing more is proposed.
            }
        });
    }

    private synchronized void committed(final Throwable failure) {
        inFlight--;
        if (failure != null) {
            refuse(failure);
        } else if (heldFrom >= 0 && refused == null) {
            proposeHeld();
        }
    }

    /**
     * Refuses every later range and fails those held (an entry failed, or the store is reopened: its appender is
     * closed, and a range it wrote must never be proposed for another store).
     */
    synchronized void refuse(final Throwable reason) {
        if (refused == null) {
            refused = reason;
        }
        heldFrom = -1;
        heldLog = null;
        final List<CompletableFuture<Void>> senders = held;
        held = new ArrayList<>();
        senders.forEach(s -> s.completeExceptionally(reason));
    }
}
