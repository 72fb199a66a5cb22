package io.junction.conformance.overload;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** The few hand-made MQTT 3.1.1 packets the bare connections of this package need. */
final class MqttBytes {
    private MqttBytes() {
    }

    /** CONNECT, clean session, with the given keep-alive in seconds. */
    static byte[] connect(final String clientId, final int keepAliveSeconds) {
        final ByteArrayOutputStream vh = new ByteArrayOutputStream();
        string(vh, "MQTT");
        vh.write(4);
        vh.write(0x02);
        vh.write(keepAliveSeconds >> 8);
        vh.write(keepAliveSeconds & 0xFF);
        string(vh, clientId);
        return packet(0x10, vh.toByteArray());
    }

    /** SUBSCRIBE packet id 1, one filter at QoS 0. */
    static byte[] subscribe(final String filter) {
        final ByteArrayOutputStream vh = new ByteArrayOutputStream();
        vh.write(0);
        vh.write(1);
        string(vh, filter);
        vh.write(0);
        return packet(0x82, vh.toByteArray());
    }

    /** Reads one packet (fixed header, remaining length, body) and returns its first byte and body. */
    static byte[] read(final InputStream in) throws IOException {
        final int first = in.read();
        if (first < 0) {
            throw new IOException("closed");
        }
        int length = 0;
        for (int shift = 0; ; shift += 7) {
            final int b = in.read();
            if (b < 0) {
                throw new IOException("closed");
            }
            length |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
        }
        final byte[] packet = new byte[length + 1];
        packet[0] = (byte) first;
        if (in.readNBytes(packet, 1, length) != length) {
            throw new IOException("closed");
        }
        return packet;
    }

    private static void string(final ByteArrayOutputStream out, final String s) {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.write(b.length >> 8);
        out.write(b.length & 0xFF);
        out.writeBytes(b);
    }

    private static byte[] packet(final int firstByte, final byte[] body) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(firstByte);
        int length = body.length;
        do {
            int digit = length & 0x7F;
            length >>>= 7;
            out.write(length > 0 ? digit | 0x80 : digit);
        } while (length > 0);
        out.writeBytes(body);
        return out.toByteArray();
    }
}
