package io.junction.amqp;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.qpid.proton.codec.ReadableBuffer;
import org.apache.qpid.proton.codec.WritableBuffer;

/**
 * A proton-j {@link WritableBuffer} over a byte array that grows as the encoder writes. One per connection, reused
 * for every outgoing message ({@link #reset()}), so encoding a delivery allocates nothing once it has grown to the
 * connection's largest message. Not thread-safe (used on the connection's event loop only).
 */
final class GrowableBuffer implements WritableBuffer {
    private byte[] bytes;
    private int position;

    GrowableBuffer(final int initialCapacity) {
        bytes = new byte[Math.max(64, initialCapacity)];
    }

    void reset() {
        position = 0;
    }

    byte[] array() {
        return bytes;
    }

    private void ensure(final int more) {
        if (position + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, position + more));
        }
    }

    @Override
    public void put(final byte b) {
        ensure(1);
        bytes[position++] = b;
    }

    @Override
    public void putFloat(final float f) {
        putInt(Float.floatToRawIntBits(f));
    }

    @Override
    public void putDouble(final double d) {
        putLong(Double.doubleToRawLongBits(d));
    }

    @Override
    public void put(final byte[] src, final int offset, final int length) {
        ensure(length);
        System.arraycopy(src, offset, bytes, position, length);
        position += length;
    }

    @Override
    public void putShort(final short s) {
        ensure(2);
        bytes[position++] = (byte) (s >> 8);
        bytes[position++] = (byte) s;
    }

    @Override
    public void putInt(final int i) {
        ensure(4);
        bytes[position++] = (byte) (i >> 24);
        bytes[position++] = (byte) (i >> 16);
        bytes[position++] = (byte) (i >> 8);
        bytes[position++] = (byte) i;
    }

    @Override
    public void putLong(final long l) {
        putInt((int) (l >> 32));
        putInt((int) l);
    }

    @Override
    public boolean hasRemaining() {
        return true;
    }

    @Override
    public void ensureRemaining(final int remaining) {
        ensure(remaining);
    }

    @Override
    public int remaining() {
        return Integer.MAX_VALUE - position;
    }

    @Override
    public int position() {
        return position;
    }

    @Override
    public void position(final int newPosition) {
        ensure(Math.max(0, newPosition - position));
        position = newPosition;
    }

    @Override
    public void put(final ByteBuffer src) {
        final int n = src.remaining();
        ensure(n);
        src.get(bytes, position, n);
        position += n;
    }

    @Override
    public void put(final ReadableBuffer src) {
        final int n = src.remaining();
        ensure(n);
        src.get(bytes, position, n);
        position += n;
    }

    @Override
    public int limit() {
        return Integer.MAX_VALUE;
    }
}
