package io.junction.mqtt;

import io.junction.core.Messaging;
import io.junction.core.message.MessageProperties;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Durable state of persistent sessions: their expiry and subscriptions, as a log in the core topic
 * {@value CoreTopics#SESSIONS} (one queue). Each change appends the session's whole state; an empty body ends it.
 * Queued messages need no record of their own: a persistent session's readers commit offsets under its offset key
 * only after the client acknowledged them, so a restored session resumes from there.
 *
 * <p>Record: properties {@value #CLIENT} (client id) and {@value #EXPIRY} (seconds; 4294967295 = never); body one line
 * per subscription, {@code qos noLocal retainAsPublished retainHandling subscriptionId filter}, space-separated, the
 * filter last (filters with a line break are not persisted). The log is a {@link CompactedLog}: replay reads only
 * the live sessions' records plus the changes since the last compaction.
 */
final class SessionStore {
    private static final Logger LOG = LoggerFactory.getLogger(SessionStore.class);
    static final String CLIENT = "mqtt.session.client";
    static final String EXPIRY = "mqtt.session.expiry";

    /** A session as read back at start. */
    record Saved(String clientId, long expirySeconds, List<Subscription> subscriptions) {
    }

    private final CompactedLog log;

    SessionStore(final Messaging messaging) {
        this.log = new CompactedLog(messaging, CoreTopics.SESSIONS, CLIENT, System::currentTimeMillis);
    }

    CompactedLog log() {
        return log;
    }

    /** Replays the log: the sessions that still exist, by client id. */
    CompletableFuture<Map<String, Saved>> load() {
        return log.load().thenApply(x -> {
            final Map<String, Saved> out = new LinkedHashMap<>();
            for (Map.Entry<String, CompactedLog.Entry> e : log.entries()) {
                out.put(e.getKey(), decode(e.getKey(), e.getValue().properties().get(EXPIRY), e.getValue().body()));
            }
            return out;
        });
    }

    /** Records a persistent session's current state. */
    void save(final String clientId, final long expirySeconds, final Iterable<Subscription> subscriptions) {
        if (!MessageProperties.isEncodable(clientId)) {
            return;
        }
        final StringBuilder sb = new StringBuilder("session\n");
        for (Subscription s : subscriptions) {
            if (s.filter().text().indexOf('\n') >= 0) {
                continue;
            }
            sb.append(s.qos()).append(' ').append(s.noLocal() ? 1 : 0).append(' ')
                    .append(s.retainAsPublished() ? 1 : 0).append(' ').append(s.retainHandling()).append(' ')
                    .append(s.subscriptionId()).append(' ').append(s.filter().text()).append('\n');
        }
        logFailure(clientId, log.put(clientId, Map.of(EXPIRY, Long.toString(expirySeconds)),
                sb.toString().getBytes(StandardCharsets.UTF_8)));
    }

    /** Records that a session ended. */
    void delete(final String clientId) {
        if (MessageProperties.isEncodable(clientId)) {
            logFailure(clientId, log.remove(clientId));
        }
    }

    private static void logFailure(final String clientId, final CompletableFuture<?> write) {
        write.whenComplete((r, e) -> {
            if (e != null) {
                LOG.warn("MQTT session state of {} not stored: {}", clientId, e.toString());
            }
        });
    }

    static Saved decode(final String clientId, final String expiry, final byte[] body) {
        final List<Subscription> subs = new ArrayList<>();
        final String[] lines = new String(body, StandardCharsets.UTF_8).split("\n");
        for (int i = 1; i < lines.length; i++) {
            final String[] f = lines[i].split(" ", 6);
            if (f.length < 6) {
                continue;
            }
            final TopicFilter filter = TopicFilter.parse(f[5]);
            if (filter == null) {
                continue;
            }
            try {
                subs.add(new Subscription(filter, Integer.parseInt(f[0]), "1".equals(f[1]), "1".equals(f[2]),
                        Integer.parseInt(f[3]), Integer.parseInt(f[4])));
            } catch (NumberFormatException e) {
                LOG.warn("skipping a malformed MQTT subscription record of {}", clientId);
            }
        }
        long seconds;
        try {
            seconds = expiry == null ? 0xFFFFFFFFL : Long.parseLong(expiry);
        } catch (NumberFormatException e) {
            seconds = 0xFFFFFFFFL;
        }
        return new Saved(clientId, seconds, subs);
    }
}
