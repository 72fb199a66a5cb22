package io.junction.kafka;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The durable state of one transactional id, as the body of a record in the transaction log
 * ({@link TransactionLog}); the latest record of an id is its state.
 *
 * <pre>
 * version        u8   (1)
 * producerId     i64
 * epoch          i16
 * timeoutMs      i32
 * state          u8   0 EMPTY (no transaction open), 1 ONGOING (its records are held in memory),
 *                     2 PREPARE_COMMIT (EndTxn(commit) decided: the batches below must all be appended)
 * sequence       i64  number of the transaction under this id, part of the marker its applied batches carry
 * -- PREPARE_COMMIT only --
 * partitions     i32, then per partition:
 *   topic        UTF  core topic
 *   queue        i32
 *   from         i64  the queue's end before any batch of this transaction was appended
 *   batches      i32, then each batch's offset in the held-batch topic (i64), in append order
 * groups         i32, then per group:
 *   group        UTF  core group
 *   offsets      i32, then (topic UTF, queue i32, offset i64) each
 * </pre>
 */
record TransactionRecord(long producerId, short epoch, int timeoutMs, State state, long sequence,
                         List<PartitionBatches> partitions, Map<String, Map<TransactionCoordinator.Partition, Long>>
                                 offsets) {
    static final int VERSION = 1;

    /** Where a transaction stands. */
    enum State {
        EMPTY, ONGOING, PREPARE_COMMIT
    }

    /** A partition's held batches of a committing transaction: their offsets in the held-batch topic. */
    record PartitionBatches(TransactionCoordinator.Partition partition, long from, List<Long> dataOffsets) {
    }

    /** A state without a commit in progress. */
    static TransactionRecord of(final long producerId, final short epoch, final int timeoutMs, final State state,
                                final long sequence) {
        return new TransactionRecord(producerId, epoch, timeoutMs, state, sequence, List.of(), Map.of());
    }

    byte[] encode() {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeLong(producerId);
            out.writeShort(epoch);
            out.writeInt(timeoutMs);
            out.writeByte(state.ordinal());
            out.writeLong(sequence);
            if (state == State.PREPARE_COMMIT) {
                out.writeInt(partitions.size());
                for (PartitionBatches p : partitions) {
                    out.writeUTF(p.partition().topic());
                    out.writeInt(p.partition().queue());
                    out.writeLong(p.from());
                    out.writeInt(p.dataOffsets().size());
                    for (long o : p.dataOffsets()) {
                        out.writeLong(o);
                    }
                }
                out.writeInt(offsets.size());
                for (Map.Entry<String, Map<TransactionCoordinator.Partition, Long>> g : offsets.entrySet()) {
                    out.writeUTF(g.getKey());
                    out.writeInt(g.getValue().size());
                    for (Map.Entry<TransactionCoordinator.Partition, Long> o : g.getValue().entrySet()) {
                        out.writeUTF(o.getKey().topic());
                        out.writeInt(o.getKey().queue());
                        out.writeLong(o.getValue());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Decodes a record's body; throws {@link IllegalArgumentException} when it is not one. */
    static TransactionRecord decode(final byte[] body) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
            if (in.readUnsignedByte() != VERSION) {
                throw new IllegalArgumentException("unknown transaction record version");
            }
            final long producerId = in.readLong();
            final short epoch = in.readShort();
            final int timeoutMs = in.readInt();
            final int s = in.readUnsignedByte();
            if (s >= State.values().length) {
                throw new IllegalArgumentException("unknown transaction state " + s);
            }
            final State state = State.values()[s];
            final long sequence = in.readLong();
            if (state != State.PREPARE_COMMIT) {
                return of(producerId, epoch, timeoutMs, state, sequence);
            }
            final List<PartitionBatches> partitions = new ArrayList<>();
            for (int i = in.readInt(); i > 0; i--) {
                final TransactionCoordinator.Partition p = new TransactionCoordinator.Partition(in.readUTF(),
                        in.readInt());
                final long from = in.readLong();
                final List<Long> data = new ArrayList<>();
                for (int n = in.readInt(); n > 0; n--) {
                    data.add(in.readLong());
                }
                partitions.add(new PartitionBatches(p, from, data));
            }
            final Map<String, Map<TransactionCoordinator.Partition, Long>> offsets = new LinkedHashMap<>();
            for (int i = in.readInt(); i > 0; i--) {
                final String group = in.readUTF();
                final Map<TransactionCoordinator.Partition, Long> byPartition = new LinkedHashMap<>();
                for (int n = in.readInt(); n > 0; n--) {
                    byPartition.put(new TransactionCoordinator.Partition(in.readUTF(), in.readInt()), in.readLong());
                }
                offsets.put(group, byPartition);
            }
            return new TransactionRecord(producerId, epoch, timeoutMs, state, sequence, partitions, offsets);
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated transaction record", e);
        }
    }

    /** The marker the first message of a committed batch carries: which transaction and which of its batches. */
    static String marker(final long producerId, final short epoch, final long sequence, final int batchIndex) {
        return markerPrefix(producerId, epoch, sequence) + batchIndex;
    }

    static String markerPrefix(final long producerId, final short epoch, final long sequence) {
        return producerId + "." + epoch + "." + sequence + ".";
    }
}
