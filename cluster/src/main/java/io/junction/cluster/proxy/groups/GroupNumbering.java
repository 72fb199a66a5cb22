package io.junction.cluster.proxy.groups;

import io.junction.core.message.MessageIds;
import java.util.HexFormat;

/**
 * What two store groups number alike, told apart by the group's number ({@link LiveGroupMap#ordinal}) where a proxy
 * hands it to clients. The metadata group is number 0 and keeps its numbers as they are, so a topic wholly on it (and
 * a proxy over one group) looks exactly as before.
 *
 * <p><b>Commit-log offsets</b> are per group. One handed out for group {@code n} (in a stored record, a send result,
 * an offset message id) carries {@code n} in bits 56..62; the group's own offset keeps bits 0..55 (64 PiB of log):
 * <pre>
 *  63  62        56 55                                                  0
 * +---+------------+-----------------------------------------------------+
 * | 0 |  group n   |           the group's own commit-log offset          |
 * +---+------------+-----------------------------------------------------+
 * </pre>
 * So {@code lookup}, a Remoting consumer's send-back and an offset message id find the group again, through any
 * proxy: numbers are the same on every proxy (configured groups by their place, from 0; groups added at run time
 * from 64 to {@value #MAX_TAGGED_ORDINAL}, recorded with them: {@link RuntimeGroupBook}).
 *
 * <p><b>Retry queues</b>: every group has its own retry topic per consumer group, each numbered from queue 0 and
 * offset 0, and a Remoting POP client names a popped message by queue id and offset alone. A redelivered message of
 * group {@code n} is handed out in queue {@code n * }{@value #RETRY_QUEUE_STRIDE}{@code  + q}.
 */
final class GroupNumbering {
    static final int RETRY_QUEUE_STRIDE = 1000;
    static final int ORDINAL_SHIFT = 56;
    static final int MAX_TAGGED_ORDINAL = 127;
    private static final long RAW_MASK = (1L << ORDINAL_SHIFT) - 1;
    /** Hex digits of an offset message id's trailing offset (8 bytes). */
    private static final int OFFSET_HEX_DIGITS = 16;

    private GroupNumbering() {
    }

    /** The commit-log offset group {@code ordinal} hands out for its own {@code raw} one. */
    static long tagged(final int ordinal, final long raw) {
        if (ordinal <= 0 || ordinal > MAX_TAGGED_ORDINAL || raw < 0 || raw > RAW_MASK) {
            return raw;
        }
        return ((long) ordinal << ORDINAL_SHIFT) | raw;
    }

    /** The group number a handed-out offset carries (0: the metadata group's, or not tagged). */
    static int ordinalOf(final long offset) {
        return offset < 0 ? 0 : (int) (offset >>> ORDINAL_SHIFT);
    }

    /** The group's own offset of a handed-out one. */
    static long rawOf(final long offset) {
        return offset < 0 ? offset : offset & RAW_MASK;
    }

    /** The queue id a redelivered (retry) message of group {@code ordinal} is handed out in. */
    static int retryQueue(final int ordinal, final int queueId) {
        return ordinal <= 0 ? queueId : ordinal * RETRY_QUEUE_STRIDE + queueId;
    }

    /**
     * An offset message id whose offset names another group than the metadata group, with the group's own offset in
     * it (what that group's store matches); null when {@code id} is no such id.
     */
    static String untaggedOffsetId(final String id) {
        final long offset = MessageIds.commitLogOffsetOf(id);
        if (ordinalOf(offset) == 0) {
            return null;
        }
        return id.substring(0, id.length() - OFFSET_HEX_DIGITS)
                + HexFormat.of().withUpperCase().toHexDigits(rawOf(offset));
    }
}
