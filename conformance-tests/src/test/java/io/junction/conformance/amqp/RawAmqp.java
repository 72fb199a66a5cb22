package io.junction.conformance.amqp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.qpid.proton.amqp.transport.Close;
import org.apache.qpid.proton.amqp.transport.FrameBody;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;

/**
 * A raw AMQP socket for bad-input tests: writes hand-made headers and frames, reads everything the broker answers
 * until it closes, and decodes the frames of the answer.
 */
final class RawAmqp implements AutoCloseable {
    static final byte[] AMQP_HEADER = {'A', 'M', 'Q', 'P', 0, 1, 0, 0};
    static final byte[] SASL_HEADER = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};

    private final Socket socket;
    private final DecoderImpl decoder = new DecoderImpl();
    private final EncoderImpl encoder = new EncoderImpl(decoder);

    RawAmqp(final int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(15_000);
        AMQPDefinedTypes.registerAllTypes(decoder, encoder);
    }

    RawAmqp write(final byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
        return this;
    }

    /** One AMQP frame (type 0) carrying an encoded performative. */
    byte[] frame(final int channel, final FrameBody performative) {
        final ByteBuffer body = ByteBuffer.allocate(4096);
        encoder.setByteBuffer(body);
        encoder.writeObject(performative);
        body.flip();
        return rawFrame(channel, Arrays.copyOf(body.array(), body.limit()));
    }

    /** A frame with {@code body} as is. */
    static byte[] rawFrame(final int channel, final byte[] body) {
        final ByteBuffer f = ByteBuffer.allocate(8 + body.length);
        f.putInt(8 + body.length).put((byte) 2).put((byte) 0).putShort((short) channel).put(body);
        return f.array();
    }

    /** Everything the broker sends until it closes the connection (fails if it does not within the timeout). */
    byte[] readUntilClosed() throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final InputStream in = socket.getInputStream();
        final byte[] buf = new byte[8192];
        try {
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the broker did not close the connection; it sent " + out.size() + " bytes");
        }
        return out.toByteArray();
    }

    /** The performatives in an answer after its 8-byte header (empty frames skipped). */
    List<Object> performatives(final byte[] answer) {
        final List<Object> out = new ArrayList<>();
        final ByteBuffer b = ByteBuffer.wrap(answer);
        b.position(8);
        while (b.remaining() >= 8) {
            final int size = b.getInt();
            final int doff = b.get() & 0xFF;
            b.get();
            b.getShort();
            final int bodyStart = b.position() + (doff * 4 - 8);
            final int end = b.position() - 8 + size;
            if (end <= bodyStart) {
                b.position(end);
                continue;
            }
            final ByteBuffer body = ByteBuffer.wrap(answer, bodyStart, end - bodyStart);
            decoder.setByteBuffer(body);
            out.add(decoder.readObject());
            b.position(end);
        }
        return out;
    }

    /** The error condition of the CLOSE in an answer, or null when there is none. */
    String closeCondition(final byte[] answer) {
        for (Object p : performatives(answer)) {
            if (p instanceof Close close) {
                return close.getError() == null ? "" : String.valueOf(close.getError().getCondition());
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
