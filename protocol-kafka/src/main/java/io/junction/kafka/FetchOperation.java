package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.message.StoredMessage;
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
 * whatever was found. The store reads on its reader pool, where what it found is also mapped to Kafka records
 * ({@link KafkaMessageMapping#fetched}); they are taken here, on the loop: each partition
 * keeps the records it takes in a {@link FetchedBatch} (their values are views of the heap copies the store read, so
 * no mapped file stays pinned; within the byte limits) that is rendered once, straight into the response buffer, when
 * the connection serializes the response. Measured (benchmarks/README.md, Kafka): copying each record into a
 * kafka-clients batch builder, whose buffer grows by a tenth at a time, and then the whole response into a heap
 * buffer, made most of a full fetch's allocation and its CPU on the loop.
 * Byte limits: a partition stops at its {@code partition_max_bytes}, the response at {@code max_bytes} (capped by
 * {@code kafka.max-fetch-bytes}), except that the response's first record is always taken so a consumer never
 * stalls on a record larger than its limits. A cancelled response (the connection closed) drops every wait.
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

    /** One partition's reads and what they found. */
    private static final class Part {
        final Target target;
        long nextOffset;
        Errors error;
        long highWatermark = -1;
        final FetchedBatch batch = new FetchedBatch();
        boolean full;
        CompletableFuture<PullResult> read;

        Part(final Target target) {
            this.target = target;
            this.nextOffset = target.offset();
            this.error = target.error();
        }
    }

    FetchOperation(final Messaging messaging, final KafkaTopics topics, final EventExecutor executor,
                   final List<Target> targets,
                   final long maxWaitMs, final int minBytes, final int maxBytes, final boolean readCommitted) {
        this.messaging = messaging;
        this.topics = topics;
        this.executor = executor;
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
                executor.execute(this::dropWaits);
            }
        });
        deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxWaitMs);
        // A read may complete before its callback is attached, which then runs here, inside read(): nothing is
        // decided until every partition's first read is issued, or the first partition read would answer alone.
        issuingFirstReads = true;
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
        final int count = Math.max(1, Math.min(MAX_MESSAGES_PER_READ, p.target.maxBytes() / RECORD_OVERHEAD));
        final CompletableFuture<PullResult> f = messaging.pull(new PullRequest("kafka", p.target.core(),
                p.target.partition(), p.nextOffset, count, null, waitMs));
        p.read = f;
        f.whenComplete((r, e) -> {
            // Mapped where the read completed (the store's reader pool, one thread per partition's read): the
            // mapping reads each record's properties, and the loop serves every partition of the fetch in turn.
            List<FetchedRecord> mapped = null;
            Throwable failure = e;
            if (failure == null) {
                try {
                    mapped = mapped(r);
                } catch (RuntimeException mappingFailed) {
                    failure = mappingFailed;
                }
            }
            final List<FetchedRecord> fetched = mapped;
            final Throwable failed = failure;
            if (executor.inEventLoop()) {
                onRead(p, r, fetched, failed);
            } else {
                executor.execute(() -> onRead(p, r, fetched, failed));
            }
        });
    }

    private static List<FetchedRecord> mapped(final PullResult r) {
        final List<StoredMessage> messages = r.messages();
        final List<FetchedRecord> fetched = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            fetched.add(KafkaMessageMapping.fetched(messages.get(i)));
        }
        return fetched;
    }

    private void onRead(final Part p, final PullResult r, final List<FetchedRecord> fetched,
                        final Throwable failure) {
        outstanding--;
        p.read = null;
        if (finished || result.isDone()) {
            return;
        }
        if (failure != null) {
            p.error = KafkaErrors.of(failure);
        } else {
            take(p, r, fetched);
        }
        if (!waiting) {
            if (outstanding == 0 && !issuingFirstReads) {
                firstReadsDone();
            }
            return;
        }
        if (enough()) {
            finish();
        } else if (remainingMs() > 0) {
            read(p, remainingMs());
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

    /** Adds what a read found ({@code fetched}: its messages mapped) to the partition's batch, within the limits. */
    private void take(final Part p, final PullResult r, final List<FetchedRecord> fetched) {
        p.highWatermark = r.maxOffset();
        switch (r.status()) {
            case OFFSET_TOO_SMALL, OFFSET_OVERFLOW -> {
                p.error = Errors.OFFSET_OUT_OF_RANGE;
                return;
            }
            case NO_SUCH_QUEUE -> {
                p.error = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                return;
            }
            default -> {
            }
        }
        for (int i = 0; i < fetched.size(); i++) {
            final FetchedRecord record = fetched.get(i);
            final int before = p.batch.sizeInBytes();
            final int after = p.batch.sizeWith(record);
            final boolean first = !records;
            if (!first && (after > p.target.maxBytes() || totalBytes + after - before > maxBytes)) {
                p.full = true;
                return;
            }
            p.batch.add(record);
            totalBytes += after - before;
            records = true;
            p.nextOffset = record.offset() + 1;
        }
        if (fetched.isEmpty() && r.nextOffset() > p.nextOffset) {
            p.nextOffset = r.nextOffset();
        }
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
            d.setRecords(p.batch.isEmpty() ? MemoryRecords.EMPTY : p.batch);
            byTopic.computeIfAbsent(p.target.topic(), t -> new ArrayList<>()).add(d);
        }
        final List<FetchableTopicResponse> responses = new ArrayList<>();
        byTopic.forEach((topic, list) -> responses.add(new FetchableTopicResponse().setTopic(topic)
                .setPartitions(list)));
        result.complete(new FetchResponseData().setSessionId(0).setResponses(responses));
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
