package io.junction.core.message;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Message ids: the server "offset id" (store host + log offset, RocketMQ's offsetMsgId) and unique ids for messages
 * whose producer did not assign one.
 */
public final class MessageIds {
    private static final HexFormat HEX = HexFormat.of().withUpperCase();
    private static final AtomicInteger COUNTER = new AtomicInteger();
    /** Per-process prefix: random bytes stand in for a client address, so ids from restarts do not collide. */
    private static final byte[] PREFIX = new byte[8];

    static {
        new SecureRandom().nextBytes(PREFIX);
    }

    private MessageIds() {
    }

    /** Hex of store IP (4 or 16 bytes), port (int32) and log offset (int64). */
    public static String offsetMessageId(final InetSocketAddress storeHost, final long commitLogOffset) {
        final byte[] ip = addressBytes(storeHost);
        final ByteBuffer buf = ByteBuffer.allocate(ip.length + 12);
        buf.put(ip).putInt(storeHost.getPort()).putLong(commitLogOffset);
        return HEX.formatHex(buf.array());
    }

    /**
     * Log offset encoded in an offset id, or -1 when {@code id} is not one (wrong length or not hex).
     */
    public static long commitLogOffsetOf(final String id) {
        if (id == null || (id.length() != 32 && id.length() != 56)) {
            return -1;
        }
        try {
            final byte[] bytes = HexFormat.of().parseHex(id);
            return ByteBuffer.wrap(bytes, bytes.length - 8, 8).getLong();
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    /** A new 32-hex-char unique id (the length and alphabet of a RocketMQ UNIQ_KEY). */
    public static String newUniqueId() {
        final ByteBuffer buf = ByteBuffer.allocate(16);
        buf.put(PREFIX);
        buf.putInt((int) (System.currentTimeMillis() / 1000));
        buf.putInt(COUNTER.getAndIncrement());
        return HEX.formatHex(buf.array());
    }

    static byte[] addressBytes(final InetSocketAddress address) {
        if (!address.isUnresolved()) {
            return address.getAddress().getAddress();
        }
        try {
            return InetAddress.getByName(address.getHostString()).getAddress();
        } catch (UnknownHostException e) {
            return new byte[4];
        }
    }
}
