package io.junction.core;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Names a delayed message while it waits for its delivery time, so its producer can recall it
 * ({@link Messaging#recall}). Text form: URL-safe base64 of {@code 1 \n topic \n uniqueId \n deliverAt \n logOffset},
 * where {@code logOffset} is the parked record's log offset (the {@link SendResult#commitLogOffset()} of a delayed
 * send): the store reads that one record to check the handle, no index needed.
 *
 * @param topic     the message's topic
 * @param uniqueId  the message's unique id
 * @param deliverAt its delivery time (epoch ms)
 * @param logOffset where its parked record lies in the log
 */
public record RecallHandle(String topic, String uniqueId, long deliverAt, long logOffset) {
    private static final String VERSION = "1";
    /** Longest text accepted by {@link #decode} (a topic and an id are short). */
    static final int MAX_TEXT_LENGTH = 1024;

    /** The text a producer keeps. */
    public String encode() {
        final String plain = VERSION + '\n' + topic + '\n' + uniqueId + '\n' + deliverAt + '\n' + logOffset;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
    }

    /** The handle a text names, or null when it is not one (garbled, truncated, another version). */
    public static RecallHandle decode(final String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_TEXT_LENGTH) {
            return null;
        }
        final String plain;
        try {
            plain = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        final String[] parts = plain.split("\n", -1);
        if (parts.length != 5 || !VERSION.equals(parts[0]) || parts[1].isEmpty() || parts[2].isEmpty()) {
            return null;
        }
        try {
            final long deliverAt = Long.parseLong(parts[3]);
            final long offset = Long.parseLong(parts[4]);
            return offset < 0 ? null : new RecallHandle(parts[1], parts[2], deliverAt, offset);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
