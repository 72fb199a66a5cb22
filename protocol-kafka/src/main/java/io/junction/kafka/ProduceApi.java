package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import io.junction.core.meta.TopicConfig;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponseCollection;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.ProduceRequest;

/**
 * Produce: each record batch (v2, any codec the library decodes: none, gzip, snappy, lz4, zstd) becomes one core batch
 * ({@link Messaging#sendBatch}: all of it or nothing, consecutive queue offsets) in the partition's queue; a batch of
 * an idempotent producer is first checked against its sequence ({@link ProducerStates}). acks=0 gets no response; acks=1
 * and acks=all are answered once the store has the batch (a single node: its copy is all of them) and consumers can
 * see it: the core indexes stored messages a moment after a send completes, so the answer waits (on the core's long
 * polling, at most {@value #VISIBLE_WAIT_MS} ms) until the partition's end covers the batch, as a Kafka high watermark
 * covers every acknowledged record. A batch of a transactional producer is held by the {@link TransactionCoordinator}
 * until its transaction ends, and answered with offset -1 (unknown until then).
 */
final class ProduceApi implements ApiHandler {
    static final long VISIBLE_WAIT_MS = 5_000;

    private final Messaging messaging;
    private final KafkaTopics topics;
    private final ProducerStates producers;
    private final TransactionCoordinator transactions;

    ProduceApi(final Messaging messaging, final KafkaTopics topics, final ProducerStates producers,
               final TransactionCoordinator transactions) {
        this.messaging = messaging;
        this.topics = topics;
        this.producers = producers;
        this.transactions = transactions;
    }

    /** A partition's batches decoded, or the error refusing all of them. */
    private record Decoded(List<Batch> batches, Errors error) {
    }

    /** A decoded batch; {@code bytes} (as produced) only for a transactional one, which a commit stores first. */
    private record Batch(RecordBatch header, List<Message> messages, byte[] bytes) {
    }

    @Override
    public CompletableFuture<ApiMessage> handle(final KafkaRequest request) {
        final ProduceRequest produce = (ProduceRequest) request.body();
        final long now = System.currentTimeMillis();
        final List<CompletableFuture<TopicProduceResponse>> topicAnswers = new ArrayList<>();
        for (TopicProduceData t : produce.data().topicData()) {
            final List<CompletableFuture<PartitionProduceResponse>> answers = new ArrayList<>();
            final Errors refused = refused(request.connection().scope(), t.name());
            for (PartitionProduceData p : t.partitionData()) {
                answers.add(refused != Errors.NONE ? done(p.index(), refused)
                        : producePartition(request.connection().scope().topic(t.name()), p, now));
            }
            topicAnswers.add(CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                    .thenApply(x -> new TopicProduceResponse().setName(t.name())
                            .setPartitionResponses(answers.stream().map(CompletableFuture::join).toList())));
        }
        if (produce.acks() == 0) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.allOf(topicAnswers.toArray(CompletableFuture[]::new)).thenApply(x -> {
            final TopicProduceResponseCollection responses = new TopicProduceResponseCollection();
            topicAnswers.forEach(a -> responses.add(a.join()));
            return new ProduceResponseData().setResponses(responses);
        });
    }

    /** Why the client may not produce to a topic (NONE when it may): its name, then its ACL. */
    private static Errors refused(final ClientScope scope, final String name) {
        if (name == null || !KafkaTopics.isLegal(name)) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        return scope.mayPublish(scope.topic(name)) ? Errors.NONE : Errors.TOPIC_AUTHORIZATION_FAILED;
    }

    /** Produces to a partition of {@code topic}, a core topic name. */
    private CompletableFuture<PartitionProduceResponse> producePartition(final String topic,
                                                                         final PartitionProduceData data,
                                                                         final long now) {
        final int partition = data.index();
        final Optional<TopicConfig> config = topics.get(topic);
        if (config.isEmpty() || partition < 0 || partition >= config.get().queueCount()) {
            return done(partition, Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        if (!(data.records() instanceof MemoryRecords records)) {
            return done(partition, Errors.CORRUPT_MESSAGE);
        }
        final Decoded decoded = decode(topic, partition, records, now);
        if (decoded.error != Errors.NONE) {
            return done(partition, decoded.error);
        }
        if (config.get().compacted() && decoded.batches.stream().anyMatch(b -> b.messages.stream()
                .anyMatch(m -> m.messageGroup() == null))) {
            return done(partition, Errors.INVALID_RECORD); // as Kafka: a compacted topic keeps records by key
        }
        CompletableFuture<Long> first = null;
        final List<CompletableFuture<Long>> all = new ArrayList<>();
        for (Batch b : decoded.batches) {
            final CompletableFuture<Long> stored = store(topic, partition, b);
            all.add(stored);
            if (first == null) {
                first = stored;
            }
        }
        if (first == null) {
            return done(partition, Errors.INVALID_RECORD); // no records at all
        }
        final CompletableFuture<Long> base = first;
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).handle((x, failure) -> {
            final PartitionProduceResponse r = new PartitionProduceResponse().setIndex(partition)
                    .setLogAppendTimeMs(-1).setLogStartOffset(topics.logStartOffset(topic, partition));
            if (failure != null) {
                final Errors error = failure.getCause() instanceof SequenceRefused refused ? refused.error
                        : KafkaErrors.of(failure);
                return r.setErrorCode(error.code()).setBaseOffset(-1);
            }
            return r.setBaseOffset(base.join());
        });
    }

    /** Stores one batch (after its idempotence check); completes with its base offset. */
    private CompletableFuture<Long> store(final String topic, final int partition, final Batch batch) {
        final RecordBatch h = batch.header;
        if (!h.hasProducerId()) {
            return messaging.sendBatch(batch.messages).thenCompose(r -> visible(topic, partition, r));
        }
        if (h.isTransactional()) {
            return checkAndStore(topic, partition, batch); // held: its partition has no batches of it to read back
        }
        return producers.whenKnown(h.producerId(), topic, partition,
                () -> storedBatches(topic, partition, h.producerId()), () -> checkAndStore(topic, partition, batch));
    }

    /** The marked batches of a producer among the partition's last messages, in offset order. */
    private CompletableFuture<List<ProducerStates.StoredBatch>> storedBatches(final String topic, final int partition,
                                                                             final long producerId) {
        final long from = Math.max(messaging.minOffset(topic, partition),
                messaging.maxOffset(topic, partition) - ProducerStates.RESTORE_WINDOW);
        final List<ProducerStates.StoredBatch> found = new ArrayList<>();
        return PartitionScan.scan(messaging, topic, partition, from, m -> {
            final ProducerStates.StoredBatch b = ProducerStates.parseMark(m.property(ProducerStates.MARK),
                    producerId, m.queueOffset());
            if (b != null) {
                found.add(b);
            }
        }).thenApply(x -> found);
    }

    private CompletableFuture<Long> checkAndStore(final String topic, final int partition, final Batch batch) {
        final RecordBatch h = batch.header;
        final ProducerStates.Decision d = producers.check(h.producerId(), h.producerEpoch(), topic, partition,
                h.baseSequence(), h.lastSequence());
        if (d.error() != Errors.NONE) {
            return CompletableFuture.failedFuture(new SequenceRefused(d.error()));
        }
        if (!d.isAppend()) {
            return d.duplicateOf();
        }
        if (h.isTransactional()) {
            // Held by the coordinator until EndTxn: its offset is not known yet (-1, as Kafka clients allow).
            final Errors held = transactions.hold(h.producerId(), h.producerEpoch(),
                    new TransactionCoordinator.Partition(topic, partition),
                    new TransactionCoordinator.HeldBatch(batch.messages, batch.bytes));
            if (held == Errors.NONE) {
                d.appended().complete(-1L);
            } else {
                d.appended().completeExceptionally(new SequenceRefused(held));
            }
            return d.appended();
        }
        // Marked so the producer's sequence is known again after a restart (ProducerStates.whenKnown).
        messaging.sendBatch(KafkaMessageMapping.withFirstProperty(batch.messages, ProducerStates.MARK,
                        ProducerStates.mark(h.producerId(), h.producerEpoch(), h.baseSequence(), h.lastSequence())))
                .thenCompose(r -> visible(topic, partition, r))
                .whenComplete((offset, failure) -> {
                    if (failure != null) {
                        d.appended().completeExceptionally(failure);
                    } else {
                        d.appended().complete(offset);
                    }
                });
        return d.appended();
    }

    /** The batch's base offset, once the partition's end covers the batch (or after the wait). */
    private CompletableFuture<Long> visible(final String topic, final int partition, final List<SendResult> results) {
        return visible(messaging, topic, partition, results);
    }

    /** The base offset of stored {@code results}, once the partition's end covers them (or after the wait). */
    static CompletableFuture<Long> visible(final Messaging messaging, final String topic, final int partition,
                                           final List<SendResult> results) {
        final long base = results.get(0).queueOffset();
        final long end = results.get(results.size() - 1).queueOffset() + 1;
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(VISIBLE_WAIT_MS);
        return awaitEnd(messaging, topic, partition, end, deadline).thenApply(x -> base);
    }

    /**
     * Completes once the partition's end reaches {@code end} or the deadline passes. A read waits only at the
     * partition's current end (one further on is answered at once as out of range), so each wait starts there and
     * the next one where the last left off.
     */
    private static CompletableFuture<Void> awaitEnd(final Messaging messaging, final String topic, final int partition,
                                                    final long end, final long deadline) {
        final long now = messaging.maxOffset(topic, partition);
        final long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (now >= end || leftMs <= 0) {
            return CompletableFuture.completedFuture(null);
        }
        return messaging.pull(new PullRequest("kafka", topic, partition, now, 1, null, leftMs))
                .handle((r, e) -> e == null && messaging.maxOffset(topic, partition) > now)
                .thenCompose(moved -> moved ? awaitEnd(messaging, topic, partition, end, deadline)
                        : CompletableFuture.completedFuture(null));
    }

    private static Decoded decode(final String topic, final int partition, final MemoryRecords records,
                                  final long now) {
        final List<Batch> batches = new ArrayList<>();
        try {
            for (MutableRecordBatch batch : records.batches()) {
                batch.ensureValid();
                if (batch.magic() < RecordBatch.MAGIC_VALUE_V2) {
                    return new Decoded(null, Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT);
                }
                if (batch.isControlBatch()) {
                    return new Decoded(null, Errors.INVALID_RECORD);
                }
                final List<Message> messages = messages(topic, partition, batch, now);
                if (!messages.isEmpty()) {
                    batches.add(new Batch(batch, messages, batch.isTransactional() ? bytes(batch) : null));
                }
            }
        } catch (RuntimeException e) {
            // A bad CRC, a truncated batch, a record or codec stream that does not decode.
            return new Decoded(null, Errors.CORRUPT_MESSAGE);
        }
        return new Decoded(batches, Errors.NONE);
    }

    private static List<Message> messages(final String topic, final int partition, final RecordBatch batch,
                                          final long now) {
        final List<Message> messages = new ArrayList<>();
        for (Record r : batch) {
            final KafkaRecord record = new KafkaRecord(bytes(r.key()), bytes(r.value()), r.timestamp(),
                    List.<Header>of(r.headers()));
            messages.add(KafkaMessageMapping.toCore(topic, partition, record, now));
        }
        return messages;
    }

    /**
     * The core messages of a record batch's bytes as a producer sent them (a transaction's batch stored before its
     * commit is applied), mapped as Produce maps them.
     */
    static List<Message> decodeBatch(final String topic, final int partition, final byte[] bytes, final long now) {
        final List<Message> messages = new ArrayList<>();
        for (MutableRecordBatch batch : MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)).batches()) {
            messages.addAll(messages(topic, partition, batch, now));
        }
        return messages;
    }

    private static byte[] bytes(final MutableRecordBatch batch) {
        final ByteBuffer buffer = ByteBuffer.allocate(batch.sizeInBytes());
        batch.writeTo(buffer);
        return buffer.array();
    }

    private static byte[] bytes(final ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        final byte[] b = new byte[buffer.remaining()];
        buffer.duplicate().get(b);
        return b;
    }

    private static CompletableFuture<PartitionProduceResponse> done(final int partition, final Errors error) {
        return CompletableFuture.completedFuture(new PartitionProduceResponse().setIndex(partition)
                .setErrorCode(error.code()).setBaseOffset(-1).setLogAppendTimeMs(-1).setLogStartOffset(-1));
    }

    /** An idempotence refusal carried through the batch's future. */
    private static final class SequenceRefused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient Errors error;

        SequenceRefused(final Errors error) {
            super(error.message(), null, false, false);
            this.error = error;
        }
    }
}
