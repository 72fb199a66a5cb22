package io.junction.conformance.rocketmq4;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * What the driver reports, one line per event on stdout: {@code EVENT <kind> key=value key=value ...}, every value
 * URL-encoded (UTF-8) so a line never breaks and never holds a stray space. The client's own output never starts with
 * {@code EVENT }, so the reading side can ignore everything else.
 */
final class Events {
    static final String PREFIX = "EVENT ";

    private Events() {
    }

    /** Prints one event; {@code pairs} alternates keys and values. */
    static void emit(final String kind, final Object... pairs) {
        final StringBuilder line = new StringBuilder(PREFIX).append(kind);
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            line.append(' ').append(pairs[i]).append('=')
                    .append(URLEncoder.encode(String.valueOf(pairs[i + 1]), StandardCharsets.UTF_8));
        }
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }

    /** A received message: where it came from and everything a test may check. */
    static void received(final String scenario, final String via, final MessageExt m) {
        final Map<String, String> user = new TreeMap<>();
        for (Map.Entry<String, String> e : m.getProperties().entrySet()) {
            if (Character.isLowerCase(e.getKey().charAt(0))) {
                user.put(e.getKey(), e.getValue()); // user properties: the system ones are upper case
            }
        }
        emit("received", "scenario", scenario, "via", via, "topic", m.getTopic(), "queue", m.getQueueId(),
                "offset", m.getQueueOffset(), "msgId", m.getMsgId(), "tags", m.getTags(), "keys", m.getKeys(),
                "body", new String(m.getBody(), StandardCharsets.UTF_8), "props", user, "flag", m.getFlag(),
                "reconsume", m.getReconsumeTimes(), "born", m.getBornTimestamp(), "stored", m.getStoreTimestamp(),
                "delayLevel", m.getDelayTimeLevel(), "at", System.currentTimeMillis());
    }
}
