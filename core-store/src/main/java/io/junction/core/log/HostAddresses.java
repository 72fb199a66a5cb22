package io.junction.core.log;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/**
 * Decodes the host fields of records (address bytes and port), reusing the last address decoded for each IPv4
 * address and port. The hosts of the records a reader meets repeat (one store host, a few producers), and decoding
 * one costs four objects; a pull of 32 records otherwise makes 64 addresses that are equal.
 *
 * <p>The slots are read and written without locks: an entry is immutable, so a reader sees either a whole entry or
 * none, and a lost update only means one more decode.
 */
final class HostAddresses {
    private static final int SLOTS = 256;
    private static final Entry[] RECENT = new Entry[SLOTS];

    private record Entry(long key, InetSocketAddress address) {
    }

    private HostAddresses() {
    }

    static InetSocketAddress decode(final ByteBuffer buf, final int position, final boolean v6) {
        if (v6) {
            return decodeNew(buf, position, 16);
        }
        final long key = (long) buf.getInt(position) << 32 | (buf.getInt(position + 4) & 0xFFFF_FFFFL); // ip, port
        final int slot = (int) (key ^ key >>> 17 ^ key >>> 32) & (SLOTS - 1);
        final Entry recent = RECENT[slot];
        if (recent != null && recent.key == key) {
            return recent.address;
        }
        final InetSocketAddress address = decodeNew(buf, position, 4);
        RECENT[slot] = new Entry(key, address);
        return address;
    }

    private static InetSocketAddress decodeNew(final ByteBuffer buf, final int position, final int length) {
        final byte[] ip = new byte[length];
        buf.get(position, ip);
        final int port = buf.getInt(position + length);
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("address of length " + length, e);
        }
    }
}
