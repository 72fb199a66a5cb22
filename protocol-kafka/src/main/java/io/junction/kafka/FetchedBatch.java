package io.junction.kafka;

import static io.junction.kafka.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static io.junction.kafka.RecordBatchDescriptor.CRC_OFFSET;
import static io.junction.kafka.RecordBatchDescriptor.HEADER_LENGTH;
import static io.junction.kafka.RecordBatchDescriptor.LENGTH_FROM;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.common.utils.internals.ByteUtils;

/**
 * Fetched records as one uncompressed record batch ({@link RecordBatchDescriptor}): records are added with their exact
 * size counted (what a fetch's byte limits count), then the batch is rendered once into a buffer of exactly that size,
 * each value written once and the CRC32C computed once over the written batch.
 *
 * <p>Records are added in offset order; the first one sets the base offset and base timestamp. Not thread safe: one
 * thread builds and renders it (the store's reader thread that read the records, see {@link FetchOperation}).
 */
final class FetchedBatch {
    private final List<FetchedRecord> records = new ArrayList<>();
    /** Each record's size without its length prefix, in the order of {@link #records}. */
    private int[] bodySizes = new int[16];
    private int recordBytes;
    private long maxTimestamp = Long.MIN_VALUE;
    /** The record {@link #sizeWith} last sized, and its body size: the fetch sizes a record, then adds it. */
    private FetchedRecord sized;
    private int sizedBody;

    boolean isEmpty() {
        return records.isEmpty();
    }

    /** The batch's size in bytes: the header and every record, 0 for no records (then nothing is written). */
    int sizeInBytes() {
        return records.isEmpty() ? 0 : HEADER_LENGTH + recordBytes;
    }

    /** The size the batch would have with {@code r} added. */
    int sizeWith(final FetchedRecord r) {
        final int body = bodySize(r);
        sized = r;
        sizedBody = body;
        return HEADER_LENGTH + recordBytes + ByteUtils.sizeOfVarint(body) + body;
    }

    /** Adds a record whose offset is above every record's so far. */
    void add(final FetchedRecord r) {
        final int body = r == sized ? sizedBody : bodySize(r);
        sized = null;
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
        final List<Header> headers = r.headers();
        size += ByteUtils.sizeOfVarint(headers.size());
        for (int i = 0; i < headers.size(); i++) {
            final Header h = headers.get(i);
            final int name = Utils.utf8Length(h.key());
            size += ByteUtils.sizeOfVarint(name) + name;
            size += h.value() == null ? 1 : ByteUtils.sizeOfVarint(h.value().length) + h.value().length;
        }
        return size;
    }

    /** The offset after the last record added. */
    long nextOffset() {
        return records.get(records.size() - 1).offset() + 1;
    }

    /** The batch rendered into a new direct buffer of {@link #sizeInBytes()} bytes, which the caller releases. */
    ByteBuf render(final ByteBufAllocator alloc) {
        final ByteBuf out = alloc.directBuffer(sizeInBytes());
        try {
            writeTo(out);
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }

    /** Writes the batch ({@link #sizeInBytes()} bytes) at the buffer's writer index. */
    void writeTo(final ByteBuf out) {
        if (records.isEmpty()) {
            return;
        }
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
        // Each record's fixed part (length .. key length, and value length) goes through a scratch array: one buffer
        // write for it instead of one per byte, each of which checks the buffer's reference count.
        final byte[] scratch = new byte[MAX_RECORD_PREFIX];
        for (int i = 0; i < records.size(); i++) {
            final FetchedRecord r = records.get(i);
            int n = putVarint(scratch, 0, bodySizes[i]);
            scratch[n++] = 0; // attributes
            n = putVarlong(scratch, n, r.timestamp() - baseTimestamp);
            n = putVarint(scratch, n, (int) (r.offset() - baseOffset));
            if (r.key() != null) {
                n = putVarint(scratch, n, r.key().length);
                out.writeBytes(scratch, 0, n);
                out.writeBytes(r.key());
                n = 0;
            } else {
                n = putVarint(scratch, n, -1);
            }
            if (r.value() == null) {
                n = putVarint(scratch, n, -1);
                out.writeBytes(scratch, 0, n);
            } else {
                n = putVarint(scratch, n, r.value().remaining());
                out.writeBytes(scratch, 0, n);
                out.writeBytes(r.value().duplicate());
            }
            final List<Header> headers = r.headers();
            if (headers.isEmpty()) {
                out.writeByte(0); // varint 0
                continue;
            }
            out.writeBytes(scratch, 0, putVarint(scratch, 0, headers.size()));
            for (int j = 0; j < headers.size(); j++) {
                final Header h = headers.get(j);
                final byte[] name = h.key().getBytes(StandardCharsets.UTF_8);
                out.writeBytes(scratch, 0, putVarint(scratch, 0, name.length));
                out.writeBytes(name);
                if (h.value() == null) {
                    out.writeBytes(scratch, 0, putVarint(scratch, 0, -1));
                } else {
                    out.writeBytes(scratch, 0, putVarint(scratch, 0, h.value().length));
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

    /**
     * Most bytes of a record before its key or value: length (varint), attributes, timestamp delta (varlong), offset
     * delta (varint), key length (varint), and the value length (varint) after a null key.
     */
    private static final int MAX_RECORD_PREFIX = 5 + 1 + 10 + 5 + 5 + 5;

    /** Writes {@code value} zig-zag encoded as a varint at {@code at}; returns the index after it. */
    private static int putVarint(final byte[] to, final int at, final int value) {
        int v = (value << 1) ^ (value >> 31);
        int i = at;
        while ((v & 0xFFFFFF80) != 0) {
            to[i++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        to[i++] = (byte) v;
        return i;
    }

    /** Writes {@code value} zig-zag encoded as a varlong at {@code at}; returns the index after it. */
    private static int putVarlong(final byte[] to, final int at, final long value) {
        long v = (value << 1) ^ (value >> 63);
        int i = at;
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0L) {
            to[i++] = (byte) (((int) v & 0x7F) | 0x80);
            v >>>= 7;
        }
        to[i++] = (byte) v;
        return i;
    }

    /** The batch as kafka-clients' records, in a heap buffer (tests). */
    MemoryRecords toMemoryRecords() {
        if (records.isEmpty()) {
            return MemoryRecords.EMPTY;
        }
        final ByteBuf heap = Unpooled.buffer(sizeInBytes());
        writeTo(heap);
        return MemoryRecords.readableRecords(heap.nioBuffer());
    }
}
