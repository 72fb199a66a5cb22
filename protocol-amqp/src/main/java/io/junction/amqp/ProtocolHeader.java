package io.junction.amqp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The 8-byte protocol header a connection opens with: "AMQP", protocol id 0 (plain) or 3 (SASL), version 1.0.0. It may
 * arrive in pieces; each piece is checked as it arrives, so a client speaking something else is answered at once.
 */
final class ProtocolHeader {
    private static final byte[] SASL_HEADER = {'A', 'M', 'Q', 'P', 3, 1, 0, 0};

    private final byte[] header = new byte[8];
    private int read;

    /** The header we speak (SASL), sent back to a client whose header we do not accept (part 2.2). */
    static ByteBuf saslHeader() {
        return Unpooled.wrappedBuffer(SASL_HEADER);
    }

    boolean complete() {
        return read == header.length;
    }

    /** Takes what {@code in} holds of the header; false when what has arrived is no header we accept. */
    boolean read(final ByteBuf in) {
        final int n = Math.min(header.length - read, in.readableBytes());
        in.readBytes(header, read, n);
        read += n;
        for (int i = 0; i < read; i++) {
            final byte b = header[i];
            final boolean ok = switch (i) {
                case 0 -> b == 'A';
                case 1 -> b == 'M';
                case 2 -> b == 'Q';
                case 3 -> b == 'P';
                case 4 -> b == 0 || b == 3;
                case 5 -> b == 1;
                default -> b == 0;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Whether the client asked for SASL (protocol id 3) rather than a plain connection (0). */
    boolean sasl() {
        return header[4] == 3;
    }

    /** The complete header, for the transport to read. */
    ByteBuf bytes() {
        return Unpooled.wrappedBuffer(header);
    }
}
