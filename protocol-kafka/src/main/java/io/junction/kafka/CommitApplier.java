package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The data side of a transaction's commit, for the {@link TransactionCoordinator} (which keeps the states and their
 * order): before the commit is decided, the held batches are stored in the transaction log's batch topic; once it is,
 * they are appended to their partitions, each batch's first message marked with {@value #MARKER} (the transaction and
 * the batch's index), and the transaction's offsets committed. Applying again after a crash appends only what is not
 * there yet: a partition's batches go in order, one core batch each, so those present are a prefix, found by their
 * marks after the partition's end recorded before the first append.
 */
final class CommitApplier {
    /** The property on the first message of each committed batch: {@link TransactionRecord#marker}. */
    static final String MARKER = "__kafka.txn";

    private final Messaging messaging;
    private final TransactionLog log;
    private final LongSupplier clock;

    CommitApplier(final Messaging messaging, final TransactionLog log, final LongSupplier clock) {
        this.messaging = messaging;
        this.log = log;
        this.clock = clock;
    }

    /**
     * Stores the batches of transactional id {@code id}; completes with, per partition, where its batches were
     * stored and the partition's end once they are (nothing of the transaction is appended yet).
     */
    CompletableFuture<List<TransactionRecord.PartitionBatches>> store(
            final String id, final Map<TransactionCoordinator.Partition, List<TransactionCoordinator.HeldBatch>> held) {
        final Map<TransactionCoordinator.Partition, List<CompletableFuture<Long>>> stored = new LinkedHashMap<>();
        final List<CompletableFuture<Long>> all = new ArrayList<>();
        held.forEach((p, list) -> {
            final List<CompletableFuture<Long>> each = new ArrayList<>();
            for (TransactionCoordinator.HeldBatch b : list) {
                final CompletableFuture<Long> offset = log.writeBatch(id, b.bytes());
                each.add(offset);
                all.add(offset);
            }
            stored.put(p, each);
        });
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).thenApply(x -> {
            final List<TransactionRecord.PartitionBatches> partitions = new ArrayList<>();
            stored.forEach((p, list) -> partitions.add(new TransactionRecord.PartitionBatches(p,
                    messaging.maxOffset(p.topic(), p.queue()), list.stream().map(CompletableFuture::join).toList())));
            return partitions;
        });
    }

    /**
     * Appends each partition's batches not yet there (all of them when {@code held} is given, the live path; else
     * those without their mark after the recorded end, read back from the log), then commits the offsets.
     */
    CompletableFuture<Void> apply(final TransactionRecord prepared,
                                  final Map<TransactionCoordinator.Partition, List<TransactionCoordinator.HeldBatch>>
                                          held) {
        final List<CompletableFuture<?>> appends = new ArrayList<>();
        for (TransactionRecord.PartitionBatches p : prepared.partitions()) {
            final CompletableFuture<Integer> present = held != null ? CompletableFuture.completedFuture(0)
                    : appliedBatches(prepared, p);
            appends.add(present.thenCompose(first -> append(prepared, p, first,
                    held == null ? null : held.get(p.partition()))));
        }
        return CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new)).thenRun(() ->
                prepared.offsets().forEach((group, byPartition) -> byPartition.forEach((p, offset) ->
                        messaging.commitOffset(group, p.topic(), p.queue(), offset))));
    }

    /** How many of a partition's batches of a prepared commit it holds already (a prefix: they go in order). */
    private CompletableFuture<Integer> appliedBatches(final TransactionRecord prepared,
                                                      final TransactionRecord.PartitionBatches p) {
        final String prefix = TransactionRecord.markerPrefix(prepared.producerId(), prepared.epoch(),
                prepared.sequence());
        final int[] applied = {0};
        return PartitionScan.scan(messaging, p.partition().topic(), p.partition().queue(), p.from(), m -> {
            final String mark = m.property(MARKER);
            if (mark != null && mark.startsWith(prefix)) {
                applied[0] = Math.max(applied[0], Integer.parseInt(mark.substring(prefix.length())) + 1);
            }
        }).thenApply(x -> applied[0]);
    }

    /** Appends batches {@code first}.. of a partition, one after the other; completes once the partition shows them. */
    private CompletableFuture<?> append(final TransactionRecord prepared, final TransactionRecord.PartitionBatches p,
                                        final int first, final List<TransactionCoordinator.HeldBatch> held) {
        final TransactionCoordinator.Partition partition = p.partition();
        CompletableFuture<List<SendResult>> chain = CompletableFuture.completedFuture(null);
        for (int i = first; i < p.dataOffsets().size(); i++) {
            final int index = i;
            final CompletableFuture<List<Message>> messages = held != null
                    ? CompletableFuture.completedFuture(held.get(index).messages())
                    : log.readBatch(p.dataOffsets().get(index)).thenApply(bytes ->
                    ProduceApi.decodeBatch(partition.topic(), partition.queue(), bytes, clock.getAsLong()));
            final String mark = TransactionRecord.marker(prepared.producerId(), prepared.epoch(), prepared.sequence(),
                    index);
            chain = chain.thenCompose(x -> messages).thenCompose(list -> messaging.sendBatch(
                    KafkaMessageMapping.withFirstProperty(list, MARKER, mark)));
        }
        return chain.thenCompose(r -> r == null ? CompletableFuture.completedFuture(null)
                : ProduceApi.visible(messaging, partition.topic(), partition.queue(), r));
    }
}
