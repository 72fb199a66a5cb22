package io.junction.cluster;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.FlushMode;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.ReplicaRole;
import io.junction.core.engine.ShortLogException;
import io.junction.core.engine.StoreConfig;
import io.junction.core.log.CommitLog;
import io.junction.core.log.LogReplication;
import io.junction.core.message.RecordLayout;
import io.junction.core.meta.DurableTable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's replica of the store group: one {@link MessageStore}, opened as follower or leader, and the
 * {@link LogReplication} its leader's appender ships written ranges through.
 *
 * <p>Only the leader's store decides anything: it stamps and writes records as a single node does, its written ranges
 * become Raft entries (a few at a time, the ranges written meanwhile grouped: {@link RangeProposals}), and their
 * senders are answered once the entry holding their range is applied here (committed by a majority). A
 * follower's store takes no sends; it writes each range at the same offset as soon as the range reaches it, before the
 * group commits it ({@link #writeAhead}: the bytes travel as Ratis state-machine data, never in the Raft log), and
 * indexes it as recovery does once the range is committed ({@link #apply}); consumers see nothing past the applied end.
 *
 * <p>Changing role reopens the store: promotion opens it as leader at the end of what was applied (cutting the rest:
 * no Raft entry holds it), and recovery rebuilds POP, timers and transactions from the log, as after a restart; a
 * leader that steps down (or meets an entry of another leader) reopens as follower keeping its uncommitted tail,
 * which its Raft log may still hold entries for: Ratis' truncation ({@link #truncateAhead}), or the next range written
 * at a lower offset, cuts it. Entries are applied, written and roles changed under one lock, so an entry never meets
 * a store halfway through a reopen.
 */
final class ReplicatedStore implements LogReplication, DurableTable.Replication, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedStore.class);

    /** Entries are cut near this size (a single larger record makes a larger entry). */
    static final int ENTRY_TARGET_BYTES = 4 << 20;
    /**
     * Log-range entries waiting for their commit at once; ranges written meanwhile wait and go as one entry. Two: the
     * next entry is under way while one commits, and each carries the batches of about half a round trip (measured
     * against 1, 4, 8 and unbounded in the README's replication section: 4 and 8 carried fewer messages per entry and
     * were no faster, since Ratis' Netty appender sends a follower one request at a time anyway).
     */
    static final int ENTRIES_IN_FLIGHT = 2;
    /** Longest wait for a metadata change to be committed (an admin thread waits; never an event loop). */
    private static final long METADATA_TIMEOUT_SECONDS = 15;
    private static final long METADATA_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final StoreConfig config;
    private final Function<ByteBuffer, CompletableFuture<Void>> submit;
    private final Function<ByteBuffer, CompletableFuture<Void>> forward;
    private final Consumer<MessageStore> opened;
    private final Object lock = new Object();
    private final Set<CompletableFuture<Void>> inFlight = ConcurrentHashMap.newKeySet();
    /** Proposes held ranges once an entry commits (Ratis' threads must not, see RangeProposals). */
    private final ExecutorService proposing = Executors.newSingleThreadExecutor(r -> {
        final Thread t = new Thread(r, "junction-cluster-propose");
        t.setDaemon(true);
        return t;
    });
    /** The leader appender's ranges on their way into entries; a new one for each store opened. */
    private volatile RangeProposals proposals = newProposals();
    private volatile MessageStore store;
    /**
     * The store being closed (a reopen after a leader change, or the node closing): a metadata change it is still
     * retrying gives up, since closing waits for its admin thread (up to 5 s) and the change is the next store's to make.
     */
    private volatile MessageStore closing;
    /** End of the last applied range: the group's committed log as far as this replica has applied it. */
    private volatile long appliedEnd;
    /** The term this store leads in, or -1 while it follows. */
    private volatile long leaderTerm = -1;
    private volatile Throwable broken;
    /** Where the ranges of uncommitted Raft entries written ahead start, by entry index (see truncateAhead). */
    private final NavigableMap<Long, Long> aheadStarts = new TreeMap<>();
    /** The end of the highest range written ahead (guarded by the lock). */
    private long aheadEnd;
    /** Reopens as leader or follower since start: this node's view of leader changes. */
    private final AtomicLong roleChanges = new AtomicLong();

    /**
     * @param submit  proposes an entry to the group through this node (the leader); completes once it is applied here
     * @param forward sends an entry to the leader wherever it is; completes once it is applied here too
     * @param opened  told each time a store is (re)opened, so that callers switch to it
     */
    ReplicatedStore(final StoreConfig config, final Function<ByteBuffer, CompletableFuture<Void>> submit,
                    final Function<ByteBuffer, CompletableFuture<Void>> forward, final Consumer<MessageStore> opened) {
        this.config = config;
        this.submit = submit;
        this.forward = forward;
        this.opened = opened;
    }

    /**
     * Opens the store as follower with its log cut at {@code logEnd} (the end the last snapshot recorded). A log that
     * ends before it (a crash while catching up from a leader's snapshot) opens as it is: the caller fetches the rest.
     *
     * @return where the opened log ends ({@code logEnd}, or less when the log is short)
     */
    long open(final long logEnd) {
        synchronized (lock) {
            MessageStore next;
            long committed = logEnd;
            try {
                next = MessageStore.open(config, ReplicaRole.writingAhead(logEnd, this, this));
            } catch (StoreException e) {
                if (!(e.getCause() instanceof ShortLogException)) {
                    throw e;
                }
                LOG.warn("{}: opening the log as it is, the rest comes from the leader", e.getCause().getMessage());
                next = MessageStore.open(config, ReplicaRole.writingAhead(-1, this, this));
                committed = next.logEnd();
            }
            store = next;
            // What lies past it was written ahead and is kept: the Raft log may still hold its entries, which Ratis
            // applies again after the snapshot (their bytes are then found here, not in the Raft log).
            appliedEnd = committed;
            opened.accept(next);
            return appliedEnd;
        }
    }

    MessageStore store() {
        return store;
    }

    /** Whether this replica takes writes now: it leads, and nothing broke. */
    boolean leading() {
        return leaderTerm >= 0 && broken == null;
    }

    /** Whether this replica gave up following its group (see {@link #broken}). */
    boolean isBroken() {
        return broken != null;
    }

    long roleChanges() {
        return roleChanges.get();
    }

    long appliedEnd() {
        return appliedEnd;
    }

    /**
     * Applies a committed entry (Ratis' apply thread, in log order). A log range's bytes are already in this replica's
     * log (its leader's appender wrote them, or {@link #writeAhead}); they are checked against the entry's CRC, and
     * fetched from the leader through {@code leader} in the rare case they are not (a write-ahead cut by a snapshot
     * install); then consumers may see them.
     */
    void apply(final long term, final long index, final ByteBuffer entry, final LogSource leader) throws IOException {
        if (ReplicaEntry.type(entry) == ReplicaEntry.METADATA) {
            final ReplicaEntry.MetadataChange change = ReplicaEntry.metadataChange(entry);
            synchronized (lock) {
                store.applyMetadata(change.table(), change.op(), change.change());
            }
            return;
        }
        if (ReplicaEntry.type(entry) == ReplicaEntry.OFFSETS) {
            synchronized (lock) {
                store.applyShippedOffsets(ReplicaEntry.offsetTable(entry));
            }
            return;
        }
        if (ReplicaEntry.type(entry) != ReplicaEntry.LOG_RANGE) {
            throw new IOException("unknown replica entry type " + ReplicaEntry.type(entry));
        }
        final ReplicaEntry.Range range = ReplicaEntry.range(entry);
        synchronized (lock) {
            aheadStarts.headMap(index, true).clear();
            if (leaderTerm >= 0) {
                if (term == leaderTerm && range.offset() == appliedEnd && store.logEnd() >= range.end()) {
                    // Our own range, already in our log: committed now, so its senders may be answered.
                    appliedEnd = range.end();
                    return;
                }
                LOG.warn("Entry of term {} at log offset {} is not this leader's (term {}): stepping down", term,
                        range.offset(), leaderTerm);
                reopen(false, -1);
            }
            if (range.offset() != appliedEnd) {
                throw new IOException("committed range at " + range.offset() + " does not continue the applied log at "
                        + appliedEnd);
            }
            if (!holds(range)) {
                LOG.warn("The committed range [{}, {}) is not in this replica's log: fetching it from the leader",
                        range.offset(), range.end());
                store.cutAhead(range.offset());
                fill(range.end(), leader);
                if (!holds(range)) {
                    throw new IOException("the leader's range [" + range.offset() + ", " + range.end()
                            + ") does not match its entry's CRC");
                }
            }
            appliedEnd = range.end();
            store.committedMore();
        }
    }

    /** Whether this replica's log holds {@code range}'s exact bytes (held under the lock). */
    private boolean holds(final ReplicaEntry.Range range) throws IOException {
        return store.logEnd() >= range.end()
                && ReplicaEntry.crc(store.readLog(range.offset(), range.end())) == range.crc();
    }

    /** Writes the leader's log from this log's end up to {@code end} (held under the lock). */
    private void fill(final long end, final LogSource leader) throws IOException {
        while (store.logEnd() < end) {
            final long from = store.logEnd();
            final ByteBuffer bytes = leader.read(from, end);
            if (bytes.remaining() == 0) {
                throw new IOException("the leader returned no log bytes at " + from);
            }
            store.writeAhead(from, bytes);
        }
    }

    // ----------------------------------------------------------------------------------------- state-machine data

    /**
     * Writes a log range of Raft entry {@code index} before the group commits it (Ratis' data API: the bytes travel
     * beside the entry and Ratis persists the entry only after this returns, so every entry in a replica's Raft log
     * has its bytes in that replica's commit log). They go straight to their offset: a replica's log past its applied
     * end is exactly the ranges of its Raft log's uncommitted entries (cut where Ratis truncates them, see
     * {@link #truncateAhead}), so no staging area is needed, and consumers see nothing of them until {@link #apply}
     * moves the committed offset. A leader's own range is already in its log.
     *
     * @param leader where the bytes before {@code range} come from when this log ends before it (the replica caught
     *               up from a snapshot whose log it has not fetched yet)
     */
    void writeAhead(final long term, final long index, final ReplicaEntry.Range range, final ByteBuffer bytes,
                    final LogSource leader) throws IOException {
        synchronized (lock) {
            if (broken != null) {
                throw new IOException("this replica is broken", broken);
            }
            aheadStarts.put(index, range.offset());
            if (leaderTerm >= 0) {
                if (term == leaderTerm && store.logEnd() >= range.end()) {
                    return;
                }
                // Another leader's range: this store no longer leads.
                reopen(false, -1);
            }
            if (store.logEnd() >= range.end() && holds(range)) {
                // Already here: written in a term this replica led, or sent again.
                return;
            }
            if (range.offset() < appliedEnd) {
                throw new IOException("range [" + range.offset() + ", " + range.end() + ") of entry " + index
                        + " overlaps the committed log at " + appliedEnd);
            }
            if (range.offset() > store.logEnd()) {
                // A gap: the ranges before it came with a snapshot this replica has not fetched yet (see installLog).
                try {
                    fill(range.offset(), leader);
                } catch (IOException e) {
                    // Our tail may not end at one of the leader's records: fetch everything uncommitted again.
                    LOG.warn("Fetching log bytes before entry {} failed ({}); fetching from {} instead", index,
                            e.getMessage(), appliedEnd);
                    store.cutAhead(appliedEnd);
                    fill(range.offset(), leader);
                }
            }
            store.writeAhead(range.offset(), bytes);
            aheadEnd = Math.max(aheadEnd, range.end());
        }
    }

    /** Ratis truncates its log from {@code index} (entries another leader replaced): cut their ranges too. */
    void truncateAhead(final long index) throws IOException {
        synchronized (lock) {
            final Map.Entry<Long, Long> first = aheadStarts.ceilingEntry(index);
            aheadStarts.tailMap(index, true).clear();
            if (first == null || broken != null) {
                // Not written since this replica opened: the next range written cuts the log where it starts.
                return;
            }
            if (first.getValue() < appliedEnd) {
                throw new IOException("Ratis truncates entry " + first.getKey() + " at log offset " + first.getValue()
                        + ", below the applied log end " + appliedEnd);
            }
            if (leaderTerm >= 0) {
                reopen(false, -1);
            }
            store.cutAhead(first.getValue());
            aheadEnd = Math.min(aheadEnd, first.getValue());
        }
    }

    /** The log bytes of a range (a leader sending an entry whose bytes Ratis did not keep), checked against its CRC. */
    ByteBuffer readRange(final ReplicaEntry.Range range) throws IOException {
        final MessageStore current = store;
        final ByteBuffer bytes = current.readLog(range.offset(), range.end());
        if (ReplicaEntry.crc(bytes) != range.crc()) {
            throw new IOException("log bytes [" + range.offset() + ", " + range.end() + ") do not match their entry");
        }
        return bytes;
    }

    /** Whether Ratis' flushes must force the ranges written ahead: sends are acknowledged only once forced (SYNC). */
    boolean forcesAhead() {
        return config.flushMode() == FlushMode.SYNC;
    }

    /** Ratis flushes its log: the ranges written ahead are forced first when sends are acknowledged only once forced. */
    void flushAhead() throws IOException {
        if (!forcesAhead()) {
            return;
        }
        synchronized (lock) {
            if (broken == null) {
                store.forceLog();
            }
        }
    }

    /** Where a replica catching up reads the leader's log: whole records from {@code from}, never past {@code to}. */
    interface LogSource {
        ByteBuffer read(long from, long to) throws IOException;
    }

    /**
     * Catches up from a leader's snapshot: writes the leader's log from this replica's applied end up to {@code
     * logEnd}, as committed ranges are written. A replica that led cuts its uncommitted tail first (it reopens as
     * follower at its applied end). Ratis applies no entry meanwhile: it waits for the snapshot.
     *
     * @throws IOException when this replica's applied log is past {@code logEnd} (it cannot be a prefix of the
     *                     leader's) or a range cannot be fetched or written
     */
    void installLog(final long logEnd, final LogSource leader) throws IOException {
        final long target;
        synchronized (lock) {
            if (broken != null) {
                throw new IOException("this replica is broken", broken);
            }
            if (leaderTerm >= 0) {
                reopen(false, -1);
            }
            if (appliedEnd > logEnd) {
                throw new IOException("this replica's log ends at " + appliedEnd + ", past the leader's snapshot at "
                        + logEnd);
            }
            // What this replica holds past its applied end may be a tail the snapshot's entries replaced: fetch it
            // all again, with any range written ahead after the snapshot.
            store.cutAhead(appliedEnd);
            target = Math.max(logEnd, aheadEnd);
            aheadEnd = appliedEnd;
        }
        while (true) {
            synchronized (lock) {
                if (store.logEnd() >= target) {
                    appliedEnd = Math.max(appliedEnd, logEnd);
                    store.committedMore();
                    return;
                }
                final long from = store.logEnd();
                final ByteBuffer bytes = leader.read(from, target);
                if (bytes.remaining() == 0) {
                    throw new IOException("the leader returned no log bytes at " + from);
                }
                store.writeAhead(from, bytes);
            }
        }
    }

    /** Takes a leader's metadata tables and consumer offsets whole (catching up from its snapshot). */
    void replaceTables(final Map<String, byte[]> tables) throws IOException {
        synchronized (lock) {
            store.replaceTables(tables);
        }
    }

    /** Forces the log and returns the applied end (a snapshot, taken on the apply thread). */
    long forceAppliedEnd() throws IOException {
        synchronized (lock) {
            store.forceLog();
            return appliedEnd;
        }
    }

    /** This node leads {@code term} and has applied everything committed before it: reopen as leader. */
    void promote(final long term) {
        synchronized (lock) {
            if (leaderTerm == term || broken != null) {
                return;
            }
            reopen(true, term);
        }
    }

    /** This node no longer leads: reopen as follower, cutting any uncommitted tail. */
    void demote() {
        synchronized (lock) {
            if (leaderTerm < 0 || broken != null) {
                return;
            }
            reopen(false, -1);
        }
    }

    private void reopen(final boolean leader, final long term) {
        final long started = System.nanoTime();
        final StoreException changed = new StoreException(StoreError.UNAVAILABLE,
                "the cluster's leader changed; the send may or may not be stored");
        // The closing appender's held ranges are never proposed (the next store's log may differ past the applied
        // end), nor any it still writes before it stops; the next store gets its own proposals once this one closed.
        proposals.refuse(changed);
        for (CompletableFuture<Void> f : inFlight) {
            f.completeExceptionally(changed);
        }
        leaderTerm = -1;
        closing = store;
        store.close();
        proposals = newProposals();
        // A leader cuts what its log holds past the applied end: it leads once every entry before its term is applied,
        // so that tail is in no Raft entry. A follower keeps it: its Raft log may hold entries for it still.
        final MessageStore next = MessageStore.open(config, leader
                ? ReplicaRole.leader(this, appliedEnd, this) : ReplicaRole.writingAhead(appliedEnd, this, this));
        if (leader) {
            aheadEnd = appliedEnd;
        }
        store = next;
        // The callers switch to the new store before it says it leads: whoever sees this node take writes
        // (acceptsWrites) must not reach the store just closed through them.
        opened.accept(next);
        leaderTerm = leader ? term : -1;
        roleChanges.incrementAndGet();
        LOG.info("Store reopened as {} at log offset {} in {} ms", leader ? "leader of term " + term : "follower",
                appliedEnd, (System.nanoTime() - started) / 1_000_000);
    }

    /** The replica cannot follow its group (a range that does not fit, a failed write): it refuses everything. */
    void broken(final Throwable cause) {
        if (broken == null) {
            LOG.error("This replica cannot apply its group's log any more; it refuses writes until restarted", cause);
            broken = cause;
            proposals.refuse(cause);
            store.close();
        }
    }

    // ----------------------------------------------------------------------------------------- LogReplication

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public CompletableFuture<Void> replicate(final CommitLog log, final long from, final long to) {
        return proposals.offer(log, from, to);
    }

    /** Proposes {@code [from, to)} of {@code log} as entries of about {@link #ENTRY_TARGET_BYTES}; all committed. */
    private CompletableFuture<Void> proposeRange(final CommitLog log, final long from, final long to) {
        final ByteBuffer bytes;
        try {
            bytes = log.copyRange(from, to);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        // One entry per few MiB, cut at record boundaries: a follower shows what it applied, so it applies whole
        // records only; and a Raft entry must fit Ratis' append buffer.
        final List<CompletableFuture<Void>> parts = new ArrayList<>();
        int start = 0;
        int pos = 0;
        while (pos < bytes.limit()) {
            final int size = bytes.getInt(pos + RecordLayout.TOTAL_SIZE_OFFSET);
            if (size <= 0 || pos + (long) size > bytes.limit()) {
                return CompletableFuture.failedFuture(new IOException("no whole record at log offset "
                        + (from + pos)));
            }
            if (pos > start && pos + size - start > ENTRY_TARGET_BYTES) {
                parts.add(submitRange(from + start, bytes.duplicate().position(start).limit(pos)));
                start = pos;
            }
            pos += size;
        }
        parts.add(submitRange(from + start, bytes.duplicate().position(start).limit(pos)));
        return parts.size() == 1 ? parts.get(0) : CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new));
    }

    private RangeProposals newProposals() {
        return new RangeProposals(this::proposeRange, proposing, ENTRIES_IN_FLIGHT, ENTRY_TARGET_BYTES);
    }

    private CompletableFuture<Void> submitRange(final long offset, final ByteBuffer bytes) {
        final CompletableFuture<Void> committed = new CompletableFuture<>();
        inFlight.add(committed);
        submit.apply(ReplicaEntry.logRange(offset, bytes)).whenComplete((ok, failure) -> {
            inFlight.remove(committed);
            if (failure == null) {
                committed.complete(null);
            } else {
                committed.completeExceptionally(failure);
            }
        });
        return committed;
    }

    /**
     * Ships the consumer-offset table to the followers when it changed (the leader, about once a second): offsets
     * change with every consumer's commit, too often for an entry each. Fire and forget: a lost shipment is followed
     * by the next one, and a failover in between costs redeliveries (at least once), not messages.
     */
    void shipOffsets() {
        if (!leading()) {
            return;
        }
        final byte[] table = store.offsetsToShip();
        if (table != null) {
            submit.apply(ReplicaEntry.offsets(table));
        }
    }

    // ----------------------------------------------------------------------------------------- metadata

    /**
     * A metadata change, from any node: the leader proposes it itself; a follower forwards it to the leader (front-ends
     * create their system topics at start, on every node). Metadata entries carry no log offset, so whoever proposes
     * them, every replica applies them the same way.
     */
    @Override
    public void propose(final String table, final byte op, final byte[] change) {
        final ByteBuffer entry = ReplicaEntry.metadata(table, op, change);
        final MessageStore serving = store;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(METADATA_TIMEOUT_SECONDS);
        // A change is idempotent (put, put-if-absent, remove of one entry), so one lost in a leader change is simply
        // proposed again: a front-end creating its topics while the first leader is elected must not fail.
        while (true) {
            final CompletableFuture<Void> committed = leading() ? submit.apply(entry) : forward.apply(entry);
            try {
                awaitUnlessClosing(committed, serving, deadline);
                return;
            } catch (ExecutionException e) {
                if (deadline - System.nanoTime() <= METADATA_RETRY_NANOS) {
                    throw e.getCause() instanceof StoreException s ? s : new StoreException(StoreError.UNAVAILABLE,
                            "metadata change not committed: " + e.getCause().getMessage(), e.getCause());
                }
                if (closing == serving) {
                    throw new StoreException(StoreError.UNAVAILABLE, "the store is reopening after a leader change: "
                            + "try again", e.getCause());
                }
                LockSupport.parkNanos(METADATA_RETRY_NANOS);
            } catch (TimeoutException e) {
                throw new StoreException(StoreError.UNAVAILABLE, "metadata change not committed within "
                        + METADATA_TIMEOUT_SECONDS + " s (is a majority of the cluster running?)", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StoreException(StoreError.UNAVAILABLE, "interrupted waiting for a metadata change", e);
            }
        }
    }

    /**
     * Waits for a metadata change to commit, in slices, giving up when {@code serving} starts closing: a leader's first
     * entries are applied only once its store reopened, and the reopen waits for this thread (it is the old store's).
     */
    private void awaitUnlessClosing(final CompletableFuture<Void> committed, final MessageStore serving,
                                    final long deadline) throws ExecutionException, TimeoutException,
            InterruptedException {
        while (true) {
            final long left = deadline - System.nanoTime();
            try {
                committed.get(Math.max(1, Math.min(left, METADATA_RETRY_NANOS)), TimeUnit.NANOSECONDS);
                return;
            } catch (TimeoutException e) {
                if (closing == serving) {
                    throw new StoreException(StoreError.UNAVAILABLE, "the store is reopening after a leader change: "
                            + "try again (the change may still be applied)");
                }
                if (deadline - System.nanoTime() <= 0) {
                    throw e;
                }
            }
        }
    }

    @Override
    public long committedOffset() {
        return appliedEnd;
    }

    @Override
    public void close() {
        synchronized (lock) {
            leaderTerm = -1;
            final MessageStore current = store;
            if (current != null) {
                closing = current;
                current.close();
            }
            proposals.refuse(new StoreException(StoreError.UNAVAILABLE, "the cluster node is closing"));
        }
        proposing.shutdown();
    }
}
