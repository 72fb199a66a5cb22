package io.junction.amqp;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.security.SaslInit;
import org.apache.qpid.proton.amqp.transport.Begin;
import org.apache.qpid.proton.amqp.transport.Open;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;

/**
 * What a well-behaved AMQP client sends before the fuzzed bytes, encoded with proton-j's codec, and a model of the
 * framing rules the broker must enforce on the rest.
 *
 * <p>A frame: {@code uint32 size | uint8 doff (data offset in 4-byte words) | uint8 type (0 AMQP, 1 SASL) |
 * uint16 channel | extended header | performative [| payload]}.
 */
final class AmqpFrames {
    static final byte[] AMQP_HEADER = {'A', 'M', 'Q', 'P', 0, 1, 0, 0};
    static final byte[] SASL_HEADER = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};
    static final int TYPE_AMQP = 0;
    static final int TYPE_SASL = 1;
    private static final int HEADER_SIZE = 8;

    private static final EncoderImpl ENCODER;

    static {
        final DecoderImpl decoder = new DecoderImpl();
        ENCODER = new EncoderImpl(decoder);
        AMQPDefinedTypes.registerAllTypes(decoder, ENCODER);
    }

    private AmqpFrames() {
    }

    static byte[] saslInit(final String mechanism) {
        final SaslInit init = new SaslInit();
        init.setMechanism(Symbol.valueOf(mechanism));
        return frame(TYPE_SASL, 0, init, null);
    }

    static byte[] open(final String containerId) {
        final Open open = new Open();
        open.setContainerId(containerId);
        open.setHostname("localhost");
        return frame(TYPE_AMQP, 0, open, null);
    }

    /** BEGIN on channel 0. */
    static byte[] begin() {
        final Begin begin = new Begin();
        begin.setNextOutgoingId(UnsignedInteger.ZERO);
        begin.setIncomingWindow(UnsignedInteger.valueOf(2048));
        begin.setOutgoingWindow(UnsignedInteger.valueOf(2048));
        return frame(TYPE_AMQP, 0, begin, null);
    }

    /** One frame: the performative, then the payload (a transfer's message bytes) if any. */
    static synchronized byte[] frame(final int type, final int channel, final Object performative,
                                     final byte[] payload) {
        final ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        buf.position(HEADER_SIZE);
        ENCODER.setByteBuffer(buf);
        ENCODER.writeObject(performative);
        if (payload != null) {
            buf.put(payload);
        }
        final int size = buf.position();
        buf.putInt(0, size).put(4, (byte) 2).put(5, (byte) type).putShort(6, (short) channel);
        return Arrays.copyOf(buf.array(), size);
    }

    /**
     * Whether the broker must close the connection for {@code bytes} sent after the prefix of {@code mode}: in mode 0
     * a protocol header that is not {@code AMQP 0|3 1 0 0} (as far as it goes); then, after an AMQP header, a frame
     * whose size is below 8 or above {@code maxFrame} (judged, as proton-j does, once the byte after the size has
     * arrived), or (once complete) whose data offset is below 8 bytes or beyond the frame, or whose type is not AMQP.
     * SASL framing (mode 0 with a SASL header) is not modelled.
     */
    static boolean breaksFraming(final int mode, final byte[] bytes, final int maxFrame) {
        int pos = 0;
        if (mode == 0) {
            for (int i = 0; i < Math.min(HEADER_SIZE, bytes.length); i++) {
                if (!headerByteValid(i, bytes[i])) {
                    return true;
                }
            }
            if (bytes.length < HEADER_SIZE || bytes[4] != 0) {
                return false;
            }
            pos = HEADER_SIZE;
        }
        final ByteBuffer b = ByteBuffer.wrap(bytes);
        // proton-j judges a frame's size once a byte after it has arrived, so a size needs one more byte here too.
        while (bytes.length - pos > 4) {
            final int size = b.getInt(pos);
            if (size < HEADER_SIZE || size > maxFrame) {
                return true; // a size of 2^31 or more reads negative, as it does for proton-j
            }
            if (bytes.length - pos < size) {
                return false; // incomplete: the broker waits for more
            }
            final int dataOffset = (bytes[pos + 4] & 0xFF) * 4;
            if (dataOffset < HEADER_SIZE || dataOffset > size || bytes[pos + 5] != TYPE_AMQP) {
                return true;
            }
            pos += size;
        }
        return false;
    }

    private static boolean headerByteValid(final int index, final byte b) {
        return switch (index) {
            case 0 -> b == 'A';
            case 1 -> b == 'M';
            case 2 -> b == 'Q';
            case 3 -> b == 'P';
            case 4 -> b == 0 || b == 3;
            case 5 -> b == 1;
            default -> b == 0;
        };
    }
}
