package io.junction.kafka;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * kafka-clients' {@link Writable} over a Netty buffer, so a response is serialized once, straight into the buffer the
 * channel writes: no heap copy of the whole response for the socket to copy again.
 *
 * <p>A Fetch response's records were rendered when they were read ({@link RenderedRecords}): given a frame to splice
 * into, the writer cuts its buffer there and adds the rendered batches to the frame as they are, so the channel writes
 * the pieces with one gathering write and the records are not copied on the event loop. Without one (tests), they are
 * copied into the buffer.
 */
final class ByteBufWritable implements Writable {
    private final ByteBuf out;
    /** The frame rendered records are spliced into, or null to copy them into {@link #out}. */
    private final CompositeByteBuf frame;
    /** Where in {@link #out} the frame's next piece begins. */
    private int cut;

    ByteBufWritable(final ByteBuf out) {
        this(out, null);
    }

    /**
     * @param out   where everything but spliced records is written; with a frame, {@link #written()} hands it over
     * @param frame the frame to splice rendered records into, or null
     */
    ByteBufWritable(final ByteBuf out, final CompositeByteBuf frame) {
        this.out = out;
        this.frame = frame;
        this.cut = out.readerIndex();
    }

    /**
     * Everything written, in order: the buffer itself without a frame; with one, the frame, which now also holds the
     * buffer's last piece (the buffer's own reference is given up: the frame's pieces keep it).
     */
    ByteBuf written() {
        if (frame == null) {
            return out;
        }
        addPiece();
        out.release();
        return frame;
    }

    private void addPiece() {
        if (out.writerIndex() > cut) {
            frame.addComponent(true, out.retainedSlice(cut, out.writerIndex() - cut));
            cut = out.writerIndex();
        }
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
        if (records instanceof RenderedRecords rendered) {
            if (frame != null) {
                addPiece();
            }
            for (ByteBuf batch : rendered.batches()) {
                if (frame == null) {
                    out.writeBytes(batch, batch.readerIndex(), batch.readableBytes());
                } else {
                    frame.addComponent(true, batch.retainedDuplicate());
                }
            }
        } else if (records instanceof MemoryRecords memory) {
            writeByteBuffer(memory.buffer());
        } else {
            throw new UnsupportedOperationException("records of " + records.getClass());
        }
    }
}
