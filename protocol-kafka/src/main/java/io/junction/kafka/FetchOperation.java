package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullStatus;
import io.junction.core.message.StoredMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * One Fetch request in progress, confined to the connection's event loop.
 *
 * <p>First every partition is read once without waiting. If that found fewer than {@code min.bytes} and the consumer
 * allows a wait, every partition's read waits on the core (long polling) until the deadline; each arrival is added and
 * its partition read again, until {@code min.bytes} are there or the deadline passes. The answer always holds
 * whatever was found.
 *
 * <p>The store reads on its reader pool, and each read's records are mapped to Kafka records
 * ({@link KafkaMessageMapping#fetched}) and rendered into one record batch ({@link FetchedBatch}) right there, within
 * the bytes the partition and the response had left when the read was issued: the partitions of a fetch are mapped and
 * rendered in parallel, and the loop only decides which batches the answer takes and writes them out as they are
 * ({@link RenderedRecords}). Measured (benchmarks/README.md, Kafka): rendering the whole answer on the loop made the
 * consumer wait on it, the reader threads idle meanwhile.
 *
 * <p>Byte limits: a partition stops at its {@code partition_max_bytes}, the response at {@code max_bytes} (capped by
 * {@code kafka.max-fetch-bytes}), except that the first batch of the first partition in request order that has records
 * is always taken, at least one record, so a consumer never stalls on a record larger than its limits; first reads are
 * therefore taken in request order, whatever order they come back in. A batch that no longer fits because other
 * partitions took bytes meanwhile is dropped and its partition read again within what is left. A cancelled response
 * (the connection closed) drops every wait and every batch.
 */
final class FetchOperation {
    /** Records asked of the core per read: enough for large batches, a bounded read either way. */
    private static final int MAX_MESSAGES_PER_READ = 1024;
    /** Fewest bytes a record takes in a batch, for how many records to ask of the core. */
    private static final int RECORD_OVERHEAD = 32;

    /**
     * A partition asked for, and the error already known for it (NONE to read it): {@code topic} as the client named
     * it, {@code core} the core topic it stands for in the client's namespace.
     */
    record Target(String topic, String core, int partition, long offset, int maxBytes, Errors error) {
    }

    private final Messaging messaging;
    private final KafkaTopics topics;
    private final EventExecutor executor;
    private final ByteBufAllocator alloc;
    private final List<Part> parts = new ArrayList<>();
    private final long maxWaitMs;
    private final int minBytes;
    private final int maxBytes;
    private final boolean readCommitted;
    private final CompletableFuture<ApiMessage> result = new CompletableFuture<>();
    private int totalBytes;
    private boolean records;
    private int outstanding;
    private boolean waiting;
    /** Set while {@link #start} issues the first reads. */
    private boolean issuingFirstReads;
    /** Set before the waits are dropped, so reads cancelled by finishing add nothing. */
    private boolean finished;
    private long deadlineNanos;
    private ScheduledFuture<?> timer;
    /** The first partition, in request order, whose first read is not yet taken into the answer. */
    private int firstReadsTaken;

    /** One partition's reads and what they found. */
    private static final class Part {
        final Target target;
        long nextOffset;
        Errors error;
        long highWatermark = -1;
        final RenderedRecords records = new RenderedRecords();
        boolean full;
        CompletableFuture<Fetched> read;
        /** Read again at once, within the bytes left: what the last read rendered no longer fit. */
        boolean readAgain;
        /** Its first read is issued and not yet taken: it is taken in request order, see {@link #takeFirstReads}. */
        boolean firstReadPending;
        /** The first read, back before a partition ahead of it in the request: held until those are taken. */
        Arrival arrived;

        Part(final Target target) {
            this.target = target;
            this.nextOffset = target.offset();
            this.error = target.error();
        }
    }

    /**
     * What one read rendered within {@code budget} bytes: its batch (null for no records), and whether the budget cut
     * it short.
     */
    private record Rendered(ByteBuf batch, long nextOffset, int budget, boolean cut) {
        static final Rendered NONE = new Rendered(null, -1, 0, false);

        void release() {
            if (batch != null) {
                batch.release();
            }
        }
    }

    /**
     * What one read found: the store's answer without its messages (they were lent to the reader thread only), and the
     * batch rendered of them.
     */
    private record Fetched(PullStatus status, long nextOffset, long maxOffset, Rendered rendered) {
    }

    /** A first read held until the partitions ahead of it are taken: what it found, or why it failed. */
    private record Arrival(Fetched fetched, Throwable failure) {
    }

    FetchOperation(final Messaging messaging, final KafkaTopics topics, final EventExecutor executor,
                   final ByteBufAllocator alloc, final List<Target> targets,
                   final long maxWaitMs, final int minBytes, final int maxBytes, final boolean readCommitted) {
        this.messaging = messaging;
        this.topics = topics;
        this.executor = executor;
        this.alloc = alloc;
        targets.forEach(t -> parts.add(new Part(t)));
        this.maxWaitMs = maxWaitMs;
        this.minBytes = minBytes;
        this.maxBytes = maxBytes;
        this.readCommitted = readCommitted;
    }

    /** Starts reading; the future completes with the response (on the event loop). */
    CompletableFuture<ApiMessage> start() {
        result.whenComplete((r, e) -> {
            if (result.isCancelled()) {
                executor.execute(this::abandon);
            }
        });
        deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxWaitMs);
        // A read may complete before its callback is attached, which then runs here, inside read(): nothing is
        // decided until every partition's first read is issued, or the first partition read would answer alone.
        issuingFirstReads = true;
        for (Part p : parts) {
            p.firstReadPending = p.error == Errors.NONE;
        }
        for (Part p : parts) {
            read(p, 0);
        }
        issuingFirstReads = false;
        if (outstanding == 0) {
            firstReadsDone();
        }
        return result;
    }

    private void read(final Part p, final long waitMs) {
        if (finished || p.error != Errors.NONE || p.full) {
            return;
        }
        outstanding++;
        // What is left when the read is issued; other partitions may take some of it before the read is back.
        final int budget = Math.max(0, Math.min(p.target.maxBytes() - p.records.sizeInBytes(), maxBytes - totalBytes));
        final int count = Math.max(1, Math.min(MAX_MESSAGES_PER_READ, p.target.maxBytes() / RECORD_OVERHEAD));
        // The records are rendered where the store read them (its reader pool, one thread per partition's read), out
        // of the memory the store lends them in: nothing is copied on the heap on the way.
        final CompletableFuture<Fetched> f = messaging.pullLent(new PullRequest("kafka", p.target.core(),
                p.target.partition(), p.nextOffset, count, null, waitMs),
                r -> new Fetched(r.status(), r.nextOffset(), r.maxOffset(), render(r.messages(), budget)),
                unclaimed -> unclaimed.rendered().release());
        p.read = f;
        f.whenComplete((r, e) -> {
            if (executor.inEventLoop()) {
                onRead(p, r, e);
            } else {
                executor.execute(() -> onRead(p, r, e));
            }
        });
    }

    /**
     * The messages as Kafka records in one batch of at most {@code budget} bytes, or of their first record alone when
     * that is larger.
     */
    private Rendered render(final List<StoredMessage> messages, final int budget) {
        if (messages.isEmpty()) {
            return Rendered.NONE;
        }
        final FetchedBatch batch = new FetchedBatch();
        boolean cut = false;
        for (int i = 0; i < messages.size(); i++) {
            final FetchedRecord record = KafkaMessageMapping.fetched(messages.get(i));
            if (!batch.isEmpty() && batch.sizeWith(record) > budget) {
                cut = true;
                break;
            }
            batch.add(record);
        }
        return new Rendered(batch.render(alloc), batch.nextOffset(), budget, cut);
    }

    private void onRead(final Part p, final Fetched fetched, final Throwable failure) {
        outstanding--;
        p.read = null;
        if (finished || result.isDone()) {
            if (fetched != null) {
                fetched.rendered().release();
            }
            return;
        }
        if (p.firstReadPending) {
            p.arrived = new Arrival(fetched, failure);
            takeFirstReads();
        } else {
            apply(p, fetched, failure);
        }
        if (!waiting) {
            if (outstanding == 0 && !issuingFirstReads) {
                firstReadsDone();
            }
            return;
        }
        if (enough()) {
            finish();
        } else if (p.read == null && remainingMs() > 0) {
            read(p, remainingMs());
        }
    }

    /**
     * Takes the first reads that are back, in request order, up to the first still out. The reads run in parallel and
     * come back in any order, but Kafka answers the first non-empty partition of the request with at least one record
     * whatever its size; deciding in arrival order let a small partition's bytes crowd out a large record ahead of it,
     * and a consumer whose partition holds that record could stall behind busier ones.
     */
    private void takeFirstReads() {
        while (firstReadsTaken < parts.size()) {
            final Part q = parts.get(firstReadsTaken);
            if (q.firstReadPending) {
                if (q.arrived == null) {
                    return;
                }
                final Arrival a = q.arrived;
                q.arrived = null;
                q.firstReadPending = false;
                apply(q, a.fetched(), a.failure());
            }
            firstReadsTaken++;
        }
    }

    private void apply(final Part p, final Fetched fetched, final Throwable failure) {
        if (failure != null) {
            p.error = KafkaErrors.of(failure);
        } else {
            take(p, fetched);
        }
        if (p.readAgain) {
            p.readAgain = false;
            read(p, 0);
        }
    }

    /** Every partition read once: answers, or waits (up to the deadline) for records on any of them. */
    private void firstReadsDone() {
        if (enough() || maxWaitMs == 0 || System.nanoTime() >= deadlineNanos) {
            finish();
            return;
        }
        waiting = true;
        final long remaining = remainingMs();
        timer = executor.schedule(this::finish, remaining, TimeUnit.MILLISECONDS);
        parts.forEach(part -> read(part, remaining));
        if (outstanding == 0) {
            finish();
        }
    }

    private long remainingMs() {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    }

    private boolean enough() {
        // Errors are answered at once, as Kafka does.
        return records && totalBytes >= minBytes || totalBytes >= maxBytes
                || parts.stream().anyMatch(p -> p.error != Errors.NONE);
    }

    /** Adds what a read found to the partition's records, if it still fits the limits; else drops it. */
    private void take(final Part p, final Fetched r) {
        final Rendered rendered = r.rendered();
        p.highWatermark = r.maxOffset();
        switch (r.status()) {
            case OFFSET_TOO_SMALL, OFFSET_OVERFLOW -> {
                rendered.release();
                p.error = Errors.OFFSET_OUT_OF_RANGE;
                return;
            }
            case NO_SUCH_QUEUE -> {
                rendered.release();
                p.error = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                return;
            }
            default -> {
            }
        }
        if (rendered.batch() == null) {
            if (r.nextOffset() > p.nextOffset) {
                p.nextOffset = r.nextOffset();
            }
            return;
        }
        final int size = rendered.batch().readableBytes();
        final int left = Math.min(p.target.maxBytes() - p.records.sizeInBytes(), maxBytes - totalBytes);
        if (records && size > left) {
            // Other partitions took bytes since the read was issued: read what fits now, if anything may.
            rendered.release();
            p.readAgain = left > 0 && left < rendered.budget();
            p.full = !p.readAgain;
            return;
        }
        p.records.add(rendered.batch());
        totalBytes += size;
        records = true;
        p.nextOffset = rendered.nextOffset();
        p.full = rendered.cut();
    }

    private void finish() {
        if (finished || result.isDone()) {
            return;
        }
        finished = true;
        dropWaits();
        final Map<String, List<PartitionData>> byTopic = new LinkedHashMap<>();
        for (Part p : parts) {
            final PartitionData d = new PartitionData().setPartitionIndex(p.target.partition())
                    .setErrorCode(p.error.code()).setPreferredReadReplica(-1);
            if (p.error == Errors.NONE || p.error == Errors.OFFSET_OUT_OF_RANGE) {
                final long hw = p.highWatermark >= 0 ? p.highWatermark
                        : messaging.maxOffset(p.target.core(), p.target.partition());
                final long start = topics.logStartOffset(p.target.core(), p.target.partition());
                d.setHighWatermark(hw).setLastStableOffset(hw).setLogStartOffset(start);
            } else {
                d.setHighWatermark(-1).setLastStableOffset(-1).setLogStartOffset(-1);
            }
            d.setAbortedTransactions(readCommitted ? List.of() : null);
            d.setRecords(p.records.isEmpty() ? MemoryRecords.EMPTY : p.records);
            byTopic.computeIfAbsent(p.target.topic(), t -> new ArrayList<>()).add(d);
        }
        final List<FetchableTopicResponse> responses = new ArrayList<>();
        byTopic.forEach((topic, list) -> responses.add(new FetchableTopicResponse().setTopic(topic)
                .setPartitions(list)));
        if (!result.complete(new FetchResponseData().setSessionId(0).setResponses(responses))) {
            releaseRecords();
        }
    }

    /** The response was cancelled (the connection closed): stops waiting and drops what was read. */
    private void abandon() {
        finished = true;
        dropWaits();
        releaseRecords();
    }

    private void releaseRecords() {
        for (Part p : parts) {
            p.records.release();
            if (p.arrived != null) {
                if (p.arrived.fetched() != null) {
                    p.arrived.fetched().rendered().release();
                }
                p.arrived = null;
            }
        }
    }

    /** Stops the deadline timer and every read still waiting on the core. */
    private void dropWaits() {
        if (timer != null) {
            timer.cancel(false);
        }
        for (Part p : parts) {
            if (p.read != null) {
                p.read.cancel(false);
            }
        }
    }
}
