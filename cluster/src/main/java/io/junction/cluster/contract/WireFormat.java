package io.junction.cluster.contract;

import io.netty.buffer.ByteBuf;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The contract's field encodings: fixed-width numbers big-endian, texts as an int32 UTF-8 length (-1 = null) and
 * bytes, lists and maps as an int32 count then their members, enums as their ordinal byte, addresses as their bytes
 * (never looked up). Every read checks its length against the bytes left, so a lying count fails the frame
 * ({@link MalformedFrameException}) instead of allocating.
 */
final class WireFormat {
    private static final byte HOST_NONE = 0;
    private static final byte HOST_ADDRESS = 1;
    private static final byte HOST_UNRESOLVED = 2;

    private WireFormat() {
    }

    static void writeString(final ByteBuf out, final String s) {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        final byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.writeBytes(bytes);
    }

    static String readString(final ByteBuf in) {
        final int length = readLength(in, 1, true);
        if (length < 0) {
            return null;
        }
        final String s = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
        in.skipBytes(length);
        return s;
    }

    static void writeBytes(final ByteBuf out, final byte[] bytes) {
        out.writeInt(bytes.length);
        out.writeBytes(bytes);
    }

    static byte[] readBytes(final ByteBuf in) {
        final byte[] bytes = new byte[readLength(in, 1, false)];
        in.readBytes(bytes);
        return bytes;
    }

    /** A length or count whose members take at least {@code unit} bytes each; checked against what is left. */
    static int readLength(final ByteBuf in, final int unit, final boolean nullable) {
        need(in, 4);
        final int n = in.readInt();
        if (n == -1 && nullable) {
            return -1;
        }
        if (n < 0 || (long) n * unit > in.readableBytes()) {
            throw new MalformedFrameException("a length of " + n + " with " + in.readableBytes() + " bytes left");
        }
        return n;
    }

    static int readCount(final ByteBuf in) {
        return readLength(in, 1, false);
    }

    private static void need(final ByteBuf in, final int bytes) {
        if (in.readableBytes() < bytes) {
            throw new MalformedFrameException("the body ends early");
        }
    }

    static int readInt(final ByteBuf in) {
        need(in, 4);
        return in.readInt();
    }

    static long readLong(final ByteBuf in) {
        need(in, 8);
        return in.readLong();
    }

    static byte readByte(final ByteBuf in) {
        need(in, 1);
        return in.readByte();
    }

    static boolean readBoolean(final ByteBuf in) {
        return readByte(in) != 0;
    }

    static void writeStrings(final ByteBuf out, final List<String> list) {
        out.writeInt(list.size());
        for (String s : list) {
            writeString(out, s);
        }
    }

    static List<String> readStrings(final ByteBuf in) {
        final int n = readLength(in, 4, false);
        final List<String> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(readString(in));
        }
        return list;
    }

    static void writeProperties(final ByteBuf out, final Map<String, String> properties) {
        out.writeInt(properties.size());
        for (Map.Entry<String, String> e : properties.entrySet()) {
            writeString(out, e.getKey());
            writeString(out, e.getValue());
        }
    }

    static Map<String, String> readProperties(final ByteBuf in) {
        final int n = readLength(in, 8, false);
        final Map<String, String> properties = new LinkedHashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            final String key = readString(in);
            final String value = readString(in);
            if (key == null || value == null) {
                throw new MalformedFrameException("a null property");
            }
            properties.put(key, value);
        }
        return properties;
    }

    static void writeHost(final ByteBuf out, final InetSocketAddress host) {
        if (host == null) {
            out.writeByte(HOST_NONE);
        } else if (host.isUnresolved()) {
            out.writeByte(HOST_UNRESOLVED);
            writeString(out, host.getHostString());
            out.writeInt(host.getPort());
        } else {
            out.writeByte(HOST_ADDRESS);
            writeBytes(out, host.getAddress().getAddress());
            out.writeInt(host.getPort());
        }
    }

    /** Reads an address without a name lookup (an address crosses as its bytes, a name stays unresolved). */
    static InetSocketAddress readHost(final ByteBuf in) {
        final byte kind = readByte(in);
        switch (kind) {
            case HOST_NONE:
                return null;
            case HOST_UNRESOLVED: {
                final String name = readString(in);
                final int port = readInt(in);
                if (name == null || port < 0 || port > 0xFFFF) {
                    throw new MalformedFrameException("a bad host");
                }
                return InetSocketAddress.createUnresolved(name, port);
            }
            case HOST_ADDRESS: {
                final byte[] address = readBytes(in);
                final int port = readInt(in);
                try {
                    return new InetSocketAddress(InetAddress.getByAddress(address), port);
                } catch (UnknownHostException | IllegalArgumentException e) {
                    throw new MalformedFrameException("a bad host address: " + e.getMessage());
                }
            }
            default:
                throw new MalformedFrameException("unknown host kind " + kind);
        }
    }

    static <E extends Enum<E>> E readEnum(final ByteBuf in, final E[] values) {
        final int ordinal = readByte(in);
        if (ordinal < 0 || ordinal >= values.length) {
            throw new MalformedFrameException("unknown " + values[0].getDeclaringClass().getSimpleName() + " "
                    + ordinal);
        }
        return values[ordinal];
    }
}
