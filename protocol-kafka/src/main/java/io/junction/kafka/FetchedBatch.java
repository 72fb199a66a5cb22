package io.junction.kafka;

import static io.junction.kafka.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static io.junction.kafka.RecordBatchDescriptor.CRC_OFFSET;
import static io.junction.kafka.RecordBatchDescriptor.HEADER_LENGTH;
import static io.junction.kafka.RecordBatchDescriptor.LENGTH_FROM;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordsSend;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.common.utils.internals.ByteUtils;

/**
 * One partition's fetched records as one uncompressed record batch ({@link RecordBatchDescriptor}), rendered only when
 * the response is serialized ({@link ByteBufWritable}): until then it holds the records (their values are views of
 * the stored bodies) and its exact size in bytes, which is what the fetch's byte limits count. Rendering writes each
 * value once, straight into the response buffer, and the CRC32C once over the written batch.
 *
 * <p>Records are added in offset order; the first one sets the base offset and base timestamp. Not thread safe: built
 * and rendered on the connection's event loop.
 */
final class FetchedBatch implements BaseRecords {
    private final List<FetchedRecord> records = new ArrayList<>();
    /** Each record's size without its length prefix, in the order of {@link #records}. */
    private int[] bodySizes = new int[16];
    private int recordBytes;
    private long maxTimestamp = Long.MIN_VALUE;

    boolean isEmpty() {
        return records.isEmpty();
    }

    /** The batch's size in bytes: the header and every record, 0 for no records (then nothing is written). */
    @Override
    public int sizeInBytes() {
        return records.isEmpty() ? 0 : HEADER_LENGTH + recordBytes;
    }

    /** The size the batch would have with {@code r} added. */
    int sizeWith(final FetchedRecord r) {
        final int body = bodySize(r);
        return HEADER_LENGTH + recordBytes + ByteUtils.sizeOfVarint(body) + body;
    }

    /** Adds a record whose offset is above every record's so far. */
    void add(final FetchedRecord r) {
        final int body = bodySize(r);
        if (records.size() == bodySizes.length) {
            bodySizes = Arrays.copyOf(bodySizes, bodySizes.length * 2);
        }
        bodySizes[records.size()] = body;
        records.add(r);
        recordBytes += ByteUtils.sizeOfVarint(body) + body;
        maxTimestamp = Math.max(maxTimestamp, r.timestamp());
    }

    /** A record's bytes after its length prefix (Kafka's {@code DefaultRecord.sizeInBytes} less the prefix). */
    private int bodySize(final FetchedRecord r) {
        final long baseOffset = records.isEmpty() ? r.offset() : records.get(0).offset();
        final long baseTimestamp = records.isEmpty() ? r.timestamp() : records.get(0).timestamp();
        int size = 1 + ByteUtils.sizeOfVarlong(r.timestamp() - baseTimestamp)
                + ByteUtils.sizeOfVarint((int) (r.offset() - baseOffset));
        size += r.key() == null ? 1 : ByteUtils.sizeOfVarint(r.key().length) + r.key().length;
        size += r.value() == null ? 1 : ByteUtils.sizeOfVarint(r.value().remaining()) + r.value().remaining();
        size += ByteUtils.sizeOfVarint(r.headers().size());
        for (Header h : r.headers()) {
            final int name = Utils.utf8Length(h.key());
            size += ByteUtils.sizeOfVarint(name) + name;
            size += h.value() == null ? 1 : ByteUtils.sizeOfVarint(h.value().length) + h.value().length;
        }
        return size;
    }

    /** Writes the batch ({@link #sizeInBytes()} bytes) at the buffer's writer index. */
    void writeTo(final ByteBufWritable writable) {
        if (records.isEmpty()) {
            return;
        }
        final ByteBuf out = writable.buffer();
        final int start = out.writerIndex();
        final FetchedRecord first = records.get(0);
        final long baseOffset = first.offset();
        final long baseTimestamp = first.timestamp();
        out.writeLong(baseOffset);
        out.writeInt(sizeInBytes() - LENGTH_FROM);
        out.writeInt(RecordBatchDescriptor.NO_PARTITION_LEADER_EPOCH);
        out.writeByte(RecordBatchDescriptor.MAGIC);
        out.writeInt(0); // the CRC, once the rest is written
        out.writeShort(0);
        out.writeInt((int) (records.get(records.size() - 1).offset() - baseOffset));
        out.writeLong(baseTimestamp);
        out.writeLong(maxTimestamp);
        out.writeLong(RecordBatchDescriptor.NO_PRODUCER_ID);
        out.writeShort(RecordBatchDescriptor.NO_PRODUCER_EPOCH);
        out.writeInt(RecordBatchDescriptor.NO_SEQUENCE);
        out.writeInt(records.size());
        for (int i = 0; i < records.size(); i++) {
            final FetchedRecord r = records.get(i);
            writable.writeVarint(bodySizes[i]);
            out.writeByte(0);
            writable.writeVarlong(r.timestamp() - baseTimestamp);
            writable.writeVarint((int) (r.offset() - baseOffset));
            if (r.key() == null) {
                writable.writeVarint(-1);
            } else {
                writable.writeVarint(r.key().length);
                out.writeBytes(r.key());
            }
            if (r.value() == null) {
                writable.writeVarint(-1);
            } else {
                writable.writeVarint(r.value().remaining());
                out.writeBytes(r.value().duplicate());
            }
            writable.writeVarint(r.headers().size());
            for (Header h : r.headers()) {
                final byte[] name = h.key().getBytes(StandardCharsets.UTF_8);
                writable.writeVarint(name.length);
                out.writeBytes(name);
                if (h.value() == null) {
                    writable.writeVarint(-1);
                } else {
                    writable.writeVarint(h.value().length);
                    out.writeBytes(h.value());
                }
            }
        }
        final int end = out.writerIndex();
        if (end - start != sizeInBytes()) {
            throw new IllegalStateException("batch of " + (end - start) + " bytes, " + sizeInBytes() + " expected");
        }
        final CRC32C crc = new CRC32C();
        crc.update(out.nioBuffer(start + ATTRIBUTES_OFFSET, end - start - ATTRIBUTES_OFFSET));
        out.setInt(start + CRC_OFFSET, (int) crc.getValue());
    }

    /** The batch as kafka-clients' records (tests, and any serializer other than {@link ByteBufWritable}). */
    MemoryRecords toMemoryRecords() {
        if (records.isEmpty()) {
            return MemoryRecords.EMPTY;
        }
        final ByteBuf heap = Unpooled.buffer(sizeInBytes());
        writeTo(new ByteBufWritable(heap));
        return MemoryRecords.readableRecords(heap.nioBuffer());
    }

    @Override
    public RecordsSend<? extends BaseRecords> toSend() {
        return toMemoryRecords().toSend();
    }
}
