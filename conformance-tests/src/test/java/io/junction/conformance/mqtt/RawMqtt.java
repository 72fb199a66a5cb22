package io.junction.conformance.mqtt;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A bare TCP connection writing hand-made MQTT bytes, for the bad input no client library would send. */
final class RawMqtt implements AutoCloseable {
    private final Socket socket;

    RawMqtt(final int port) {
        try {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(200);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** CONNECT, MQTT 3.1.1, clean session. */
    static byte[] connect311(final String clientId, final int keepAlive) {
        final ByteArrayOutputStream vh = new ByteArrayOutputStream();
        writeString(vh, "MQTT");
        vh.write(4); // protocol level 3.1.1
        vh.write(0x02); // clean session
        vh.write(keepAlive >> 8);
        vh.write(keepAlive & 0xFF);
        writeString(vh, clientId);
        return packet(0x10, vh.toByteArray());
    }

    /** CONNECT, MQTT 3.1.1, clean session, whose client id is the given bytes as they are. */
    static byte[] connect311RawClientId(final byte[] clientId) {
        final ByteArrayOutputStream vh = new ByteArrayOutputStream();
        writeString(vh, "MQTT");
        vh.write(4);
        vh.write(0x02);
        vh.write(0);
        vh.write(60);
        vh.write(clientId.length >> 8);
        vh.write(clientId.length & 0xFF);
        vh.writeBytes(clientId);
        return packet(0x10, vh.toByteArray());
    }

    /** PUBLISH QoS 0, MQTT 3.1.1, whose topic is the given bytes as they are. */
    static byte[] publishRawTopic(final byte[] topic, final String payload) {
        final ByteArrayOutputStream vh = new ByteArrayOutputStream();
        vh.write(topic.length >> 8);
        vh.write(topic.length & 0xFF);
        vh.writeBytes(topic);
        vh.writeBytes(payload.getBytes(StandardCharsets.UTF_8));
        return packet(0x30, vh.toByteArray());
    }

    /** CONNECT, MQTT 3.1.1, clean session, with a QoS 0 will. */
    static byte[] connect311WithWill(final String clientId, final String willTopic, final String willPayload) {
        final ByteArrayOutputStream vh = new ByteArrayOutputStream();
        writeString(vh, "MQTT");
        vh.write(4);
        vh.write(0x02 | 0x04); // clean session, will flag, will QoS 0
        vh.write(0);
        vh.write(60);
        writeString(vh, clientId);
        writeString(vh, willTopic);
        writeString(vh, willPayload);
        return packet(0x10, vh.toByteArray());
    }

    /** PUBLISH QoS 0. */
    static byte[] publish(final String topic, final String payload) {
        return publishRawTopic(topic.getBytes(StandardCharsets.UTF_8), payload);
    }

    static byte[] packet(final int firstByte, final byte[] body) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(firstByte);
        int len = body.length;
        do {
            int digit = len % 128;
            len /= 128;
            if (len > 0) {
                digit |= 0x80;
            }
            out.write(digit);
        } while (len > 0);
        out.writeBytes(body);
        return out.toByteArray();
    }

    private static void writeString(final ByteArrayOutputStream out, final String s) {
        final byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.write(b.length >> 8);
        out.write(b.length & 0xFF);
        out.writeBytes(b);
    }

    void send(final byte[] bytes) {
        try {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads one byte, or -2 when none came within the socket's short timeout, or -1 at end of stream. */
    int readByte() {
        try {
            return socket.getInputStream().read();
        } catch (final SocketTimeoutException e) {
            return -2;
        } catch (final IOException e) {
            return -1; // reset by the peer: closed as well
        }
    }

    /** Reads the next whole packet's first byte and skips its body; -1 when the stream ended. */
    int readPacketType(final Duration within) {
        final long end = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < end) {
            final int b = readByte();
            if (b == -2) {
                continue;
            }
            if (b < 0) {
                return -1;
            }
            try {
                final InputStream in = socket.getInputStream();
                int len = 0;
                int mult = 1;
                int d;
                do {
                    d = in.read();
                    len += (d & 0x7F) * mult;
                    mult *= 128;
                } while ((d & 0x80) != 0);
                in.readNBytes(len);
            } catch (final IOException e) {
                return -1;
            }
            return b;
        }
        return -2;
    }

    /** Whether the peer closes the connection within {@code within} (anything it sends first is skipped). */
    boolean closedWithin(final Duration within) {
        final long end = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < end) {
            if (readByte() == -1) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** CONNECT, MQTT 5, with session expiry and receive maximum properties (0 = absent). */
    static byte[] connect5(final String clientId, final boolean cleanStart, final long sessionExpiry,
                           final int receiveMaximum) {
        return connect5(clientId, cleanStart, sessionExpiry, receiveMaximum, 0);
    }

    /** CONNECT, MQTT 5, also with a Maximum Packet Size property (0 = absent). */
    static byte[] connect5(final String clientId, final boolean cleanStart, final long sessionExpiry,
                           final int receiveMaximum, final int maximumPacketSize) {
        return connect5(clientId, cleanStart, sessionExpiry, receiveMaximum, maximumPacketSize, 0);
    }

    /** CONNECT, MQTT 5, also with a Topic Alias Maximum property (0 = absent). */
    static byte[] connect5(final String clientId, final boolean cleanStart, final long sessionExpiry,
                           final int receiveMaximum, final int maximumPacketSize, final int topicAliasMaximum) {
        final ByteArrayOutputStream vh = new ByteArrayOutputStream();
        writeString(vh, "MQTT");
        vh.write(5);
        vh.write(cleanStart ? 0x02 : 0);
        vh.write(0);
        vh.write(60);
        final ByteArrayOutputStream props = new ByteArrayOutputStream();
        if (sessionExpiry > 0) {
            props.write(0x11);
            props.write((int) (sessionExpiry >> 24) & 0xFF);
            props.write((int) (sessionExpiry >> 16) & 0xFF);
            props.write((int) (sessionExpiry >> 8) & 0xFF);
            props.write((int) sessionExpiry & 0xFF);
        }
        if (receiveMaximum > 0) {
            props.write(0x21);
            props.write(receiveMaximum >> 8);
            props.write(receiveMaximum & 0xFF);
        }
        if (maximumPacketSize > 0) {
            props.write(0x27);
            writeInt(props, maximumPacketSize);
        }
        if (topicAliasMaximum > 0) {
            props.write(0x22);
            props.write(topicAliasMaximum >> 8);
            props.write(topicAliasMaximum & 0xFF);
        }
        vh.write(props.size());
        vh.writeBytes(props.toByteArray());
        writeString(vh, clientId);
        return packet(0x10, vh.toByteArray());
    }

    /** CONNECT, MQTT 3.1.1, with the clean session flag as given. */
    static byte[] connect311(final String clientId, final boolean cleanSession) {
        final byte[] p = connect311(clientId, 60);
        if (!cleanSession) {
            p[2 + 2 + 4 + 1] = 0; // connect flags byte after the protocol name and level
        }
        return p;
    }

    /** SUBSCRIBE one filter; {@code v5} adds the empty property length. */
    static byte[] subscribe(final int packetId, final String filter, final int qos, final boolean v5) {
        final ByteArrayOutputStream vh = new ByteArrayOutputStream();
        vh.write(packetId >> 8);
        vh.write(packetId & 0xFF);
        if (v5) {
            vh.write(0);
        }
        writeString(vh, filter);
        vh.write(qos);
        return packet(0x82, vh.toByteArray());
    }

    /** PUBLISH QoS 0 for MQTT 5 (empty properties). */
    static byte[] publish5(final String topic, final String payload) {
        return publish5RawTopic(topic.getBytes(StandardCharsets.UTF_8), payload);
    }

    /** PUBLISH for MQTT 5 (empty properties) whose topic is the given bytes as they are, valid UTF-8 or not. */
    static byte[] publish5RawTopic(final byte[] topic, final String payload) {
        final ByteArrayOutputStream vh = new ByteArrayOutputStream();
        vh.write(topic.length >> 8);
        vh.write(topic.length & 0xFF);
        vh.writeBytes(topic);
        vh.write(0);
        vh.writeBytes(payload.getBytes(StandardCharsets.UTF_8));
        return packet(0x30, vh.toByteArray());
    }

    /** PUBLISH QoS 2 for MQTT 5 (empty properties). */
    static byte[] publish5Qos2(final String topic, final String payload, final int packetId) {
        final ByteArrayOutputStream vh = new ByteArrayOutputStream();
        writeString(vh, topic);
        vh.write(packetId >> 8);
        vh.write(packetId & 0xFF);
        vh.write(0);
        vh.writeBytes(payload.getBytes(StandardCharsets.UTF_8));
        return packet(0x34, vh.toByteArray());
    }

    static byte[] pubAck(final int packetId) {
        return new byte[] {0x40, 2, (byte) (packetId >> 8), (byte) packetId};
    }

    /** A whole packet: its first byte, then its body; null when none came within {@code within} or it closed. */
    byte[] readPacket(final Duration within) {
        final long end = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < end) {
            final int b = readByte();
            if (b == -2) {
                continue;
            }
            if (b < 0) {
                return null;
            }
            try {
                socket.setSoTimeout(5000);
                final InputStream in = socket.getInputStream();
                int len = 0;
                int mult = 1;
                int d;
                do {
                    d = in.read();
                    len += (d & 0x7F) * mult;
                    mult *= 128;
                } while ((d & 0x80) != 0);
                final byte[] body = in.readNBytes(len);
                final byte[] all = new byte[body.length + 1];
                all[0] = (byte) b;
                System.arraycopy(body, 0, all, 1, body.length);
                return all;
            } catch (final IOException e) {
                return null;
            } finally {
                try {
                    socket.setSoTimeout(200);
                } catch (final IOException ignored) {
                    // closed
                }
            }
        }
        return null;
    }

    /** PUBLISH QoS 2, MQTT 3.1.1, with the DUP flag as given. */
    static byte[] publishQos2(final String topic, final String payload, final int packetId, final boolean dup) {
        final ByteArrayOutputStream vh = new ByteArrayOutputStream();
        writeString(vh, topic);
        vh.write(packetId >> 8);
        vh.write(packetId & 0xFF);
        vh.writeBytes(payload.getBytes(StandardCharsets.UTF_8));
        return packet(0x34 | (dup ? 0x08 : 0), vh.toByteArray());
    }

    static byte[] pubRel(final int packetId) {
        return new byte[] {0x62, 2, (byte) (packetId >> 8), (byte) packetId};
    }

    static byte[] pubRec(final int packetId) {
        return new byte[] {0x50, 2, (byte) (packetId >> 8), (byte) packetId};
    }

    static byte[] pubComp(final int packetId) {
        return new byte[] {0x70, 2, (byte) (packetId >> 8), (byte) packetId};
    }

    /** The packet id of a PUBACK, PUBREC, PUBREL or PUBCOMP read by {@link #readPacket}. */
    static int ackPacketId(final byte[] packet) {
        return (packet[1] & 0xFF) << 8 | packet[2] & 0xFF;
    }

    /** The payload of an MQTT 3.1.1 QoS 1/2 PUBLISH read by {@link #readPacket}. */
    static String publishPayload311(final byte[] packet) {
        final int topicLength = (packet[1] & 0xFF) << 8 | packet[2] & 0xFF;
        final int start = 5 + topicLength;
        return new String(packet, start, packet.length - start, StandardCharsets.UTF_8);
    }

    /** The packet id of a QoS 1/2 PUBLISH read by {@link #readPacket}. */
    static int publishPacketId(final byte[] packet) {
        final int topicLength = (packet[1] & 0xFF) << 8 | packet[2] & 0xFF;
        return (packet[3 + topicLength] & 0xFF) << 8 | packet[4 + topicLength] & 0xFF;
    }

    /** CONNECT, MQTT 5, with session expiry and a QoS 0 will carrying a will delay interval. */
    static byte[] connect5WithWill(final String clientId, final boolean cleanStart, final int sessionExpiry,
                                   final int willDelay, final String willTopic, final String willPayload) {
        final ByteArrayOutputStream vh = new ByteArrayOutputStream();
        writeString(vh, "MQTT");
        vh.write(5);
        vh.write((cleanStart ? 0x02 : 0) | 0x04);
        vh.write(0);
        vh.write(60);
        vh.write(5);
        vh.write(0x11);
        writeInt(vh, sessionExpiry);
        writeString(vh, clientId);
        vh.write(5);
        vh.write(0x18);
        writeInt(vh, willDelay);
        writeString(vh, willTopic);
        writeString(vh, willPayload);
        return packet(0x10, vh.toByteArray());
    }

    private static void writeInt(final ByteArrayOutputStream out, final int v) {
        out.write(v >>> 24);
        out.write((v >>> 16) & 0xFF);
        out.write((v >>> 8) & 0xFF);
        out.write(v & 0xFF);
    }
}
