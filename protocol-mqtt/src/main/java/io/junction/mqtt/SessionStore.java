package io.junction.mqtt;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullStatus;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
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
 * At start the log is replayed, the last record per client id wins. Queued messages need no record of their own: a
 * persistent session's readers commit offsets under its offset key only after the client acknowledged them, so a
 * restored session resumes from there.
 *
 * <p>Record: properties {@value #CLIENT} (client id) and {@value #EXPIRY} (seconds; 4294967295 = never); body one line
 * per subscription, {@code qos noLocal retainAsPublished retainHandling subscriptionId filter}, space-separated, the
 * filter last (filters with a line break are not persisted). Not compacted yet: replay grows with the changes.
 */
final class SessionStore {
    private static final Logger LOG = LoggerFactory.getLogger(SessionStore.class);
    static final String CLIENT = "mqtt.session.client";
    static final String EXPIRY = "mqtt.session.expiry";

    /** A session as read back at start. */
    record Saved(String clientId, long expirySeconds, List<Subscription> subscriptions) {
    }

    private final Messaging messaging;

    SessionStore(final Messaging messaging) {
        this.messaging = messaging;
    }

    /** Replays the log: the sessions that still exist, by client id. */
    CompletableFuture<Map<String, Saved>> load() {
        final CompletableFuture<?> created = messaging.route(CoreTopics.SESSIONS).isPresent()
                ? CompletableFuture.completedFuture(null)
                : messaging.topics().createIfAbsent(TopicConfig.of(CoreTopics.SESSIONS, 1));
        final Map<String, Saved> out = new LinkedHashMap<>();
        return created.thenCompose(x -> replay(messaging.minOffset(CoreTopics.SESSIONS, 0), out))
                .thenApply(x -> out);
    }

    private CompletableFuture<Void> replay(final long offset, final Map<String, Saved> out) {
        if (offset >= messaging.maxOffset(CoreTopics.SESSIONS, 0)) {
            return CompletableFuture.completedFuture(null);
        }
        return messaging.pull(new PullRequest("mqtt-sessions", CoreTopics.SESSIONS, 0, offset, 256, null, 0))
                .thenCompose(r -> {
                    for (StoredMessage m : r.messages()) {
                        final String id = m.property(CLIENT);
                        if (id == null) {
                            continue;
                        }
                        final byte[] body = m.bodyBytes();
                        if (body.length == 0) {
                            out.remove(id);
                        } else {
                            out.put(id, decode(id, m.property(EXPIRY), body));
                        }
                    }
                    if (r.status() == PullStatus.NO_SUCH_QUEUE || r.nextOffset() <= offset) {
                        return CompletableFuture.completedFuture(null);
                    }
                    return replay(r.nextOffset(), out);
                });
    }

    /** Records a persistent session's current state. */
    void save(final String clientId, final long expirySeconds, final Iterable<Subscription> subscriptions) {
        final StringBuilder sb = new StringBuilder("session\n");
        for (Subscription s : subscriptions) {
            if (s.filter().text().indexOf('\n') >= 0) {
                continue;
            }
            sb.append(s.qos()).append(' ').append(s.noLocal() ? 1 : 0).append(' ')
                    .append(s.retainAsPublished() ? 1 : 0).append(' ').append(s.retainHandling()).append(' ')
                    .append(s.subscriptionId()).append(' ').append(s.filter().text()).append('\n');
        }
        append(clientId, expirySeconds, sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Records that a session ended. */
    void delete(final String clientId) {
        append(clientId, 0, new byte[0]);
    }

    private void append(final String clientId, final long expirySeconds, final byte[] body) {
        if (!io.junction.core.message.MessageProperties.isEncodable(clientId)) {
            return;
        }
        messaging.send(Message.builder(CoreTopics.SESSIONS).queueId(0).body(body).property(CLIENT, clientId)
                .property(EXPIRY, Long.toString(expirySeconds)).build()).whenComplete((r, e) -> {
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
