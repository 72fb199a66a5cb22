package io.junction.kafka;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * kafka-clients' {@link Writable} over a Netty buffer, so a response is serialized once, straight into the buffer the
 * channel writes. Fetched records ({@link FetchedBatch}) are rendered here from the stored bodies: no intermediate
 * batch, no heap copy of the whole response for the socket to copy again.
 */
final class ByteBufWritable implements Writable {
    private final ByteBuf out;

    ByteBufWritable(final ByteBuf out) {
        this.out = out;
    }

    ByteBuf buffer() {
        return out;
    }

    @Override
    public void writeByte(final byte val) {
        out.writeByte(val);
    }

    @Override
    public void writeShort(final short val) {
        out.writeShort(val);
    }

    @Override
    public void writeInt(final int val) {
        out.writeInt(val);
    }

    @Override
    public void writeLong(final long val) {
        out.writeLong(val);
    }

    @Override
    public void writeDouble(final double val) {
        out.writeDouble(val);
    }

    @Override
    public void writeByteArray(final byte[] arr) {
        out.writeBytes(arr);
    }

    @Override
    public void writeByteBuffer(final ByteBuffer buf) {
        out.writeBytes(buf.duplicate());
    }

    @Override
    public void writeUnsignedVarint(final int value) {
        int v = value;
        while ((v & 0xFFFFFF80) != 0) {
            out.writeByte((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.writeByte(v);
    }

    @Override
    public void writeVarint(final int value) {
        writeUnsignedVarint((value << 1) ^ (value >> 31));
    }

    @Override
    public void writeVarlong(final long value) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0L) {
            out.writeByte(((int) v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.writeByte((int) v);
    }

    @Override
    public void writeRecords(final BaseRecords records) {
        if (records instanceof FetchedBatch batch) {
            batch.writeTo(this);
        } else if (records instanceof MemoryRecords memory) {
            writeByteBuffer(memory.buffer());
        } else {
            throw new UnsupportedOperationException("records of " + records.getClass());
        }
    }
}
