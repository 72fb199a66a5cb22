package io.junction.cluster.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The codec tests' round trip: write a value into a buffer, read it back, and insist that every byte was read; and the
 * bytes a writer writes, to cut, damage or send by hand.
 */
final class WireRoundTrip {
    private WireRoundTrip() {
    }

    static <T, R> R roundTrip(final T value, final BiConsumer<ByteBuf, T> write, final Function<ByteBuf, R> read) {
        final ByteBuf buf = Unpooled.buffer();
        try {
            write.accept(buf, value);
            final R back = read.apply(buf);
            assertThat(buf.isReadable()).as("every byte read").isFalse();
            return back;
        } finally {
            buf.release();
        }
    }

    /** What {@code write} writes, as bytes. */
    static byte[] written(final Consumer<ByteBuf> write) {
        final ByteBuf buf = Unpooled.buffer();
        try {
            write.accept(buf);
            final byte[] out = new byte[buf.readableBytes()];
            buf.readBytes(out);
            return out;
        } finally {
            buf.release();
        }
    }
}
