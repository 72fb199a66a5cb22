package io.junction.mqtt;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullStatus;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A durable table of key → record kept as a log in a one-queue core topic, for state that must outlive the store's
 * retention (retained messages, persistent sessions).
 *
 * <p>Every change appends a record carrying its key in the property given at construction; an empty body removes the
 * key. Replay reads from the table's <em>start</em> (an offset committed under the group {@code <topic>-start}) and the
 * last record per key wins. {@link #compactIfDue} copies every live record forward (appends it again) and then moves
 * the start to the first copy, so the log replays in time proportional to the live keys and no live record is older
 * than half the retention when its segment could be deleted.
 *
 * <p>Ordering: changes and copies are issued under this object's lock and the core appends sends from one thread in
 * the order they were issued, so a copy can never land after a newer change of its key. The live table is updated
 * when a change is issued, not when it completes, for the same reason.
 */
final class CompactedLog {
    private static final Logger LOG = LoggerFactory.getLogger(CompactedLog.class);
    /** Marks a record copied forward by compaction (kept for operators reading the topic). */
    static final String COPIED = "junction.compacted";
    /** Garbage (superseded or removed records since the start) tolerated before compacting, at least. */
    static final long MIN_GARBAGE = 1024;

    /** A live record: what it holds and when it was last appended (wall-clock milliseconds). */
    record Entry(Map<String, String> properties, byte[] body, long writtenAt) {
    }

    private final Messaging messaging;
    private final String topic;
    private final String keyProperty;
    private final String startGroup;
    private final LongSupplier clock;
    private final Map<String, Entry> live = new ConcurrentHashMap<>();
    private boolean compacting;

    CompactedLog(final Messaging messaging, final String topic, final String keyProperty, final LongSupplier clock) {
        this.messaging = messaging;
        this.topic = topic;
        this.keyProperty = keyProperty;
        this.startGroup = topic + "-start";
        this.clock = clock;
    }

    /** Creates the topic if needed and replays it into the live table. */
    CompletableFuture<Void> load() {
        final CompletableFuture<?> created = messaging.route(topic).isPresent()
                ? CompletableFuture.completedFuture(null)
                : messaging.topics().createIfAbsent(TopicConfig.of(topic, 1));
        return created.thenCompose(x -> {
            final long min = messaging.minOffset(topic, 0);
            final long start = messaging.queryOffset(startGroup, topic, 0);
            if (start >= 0 && start < min) {
                LOG.warn("{}: records {}..{} were deleted by retention before they were compacted", topic, start, min);
            }
            return replay(Math.max(start, min));
        });
    }

    private CompletableFuture<Void> replay(final long offset) {
        if (offset >= messaging.maxOffset(topic, 0)) {
            return CompletableFuture.completedFuture(null);
        }
        return messaging.pull(new PullRequest(startGroup, topic, 0, offset, 256, null, 0)).thenCompose(r -> {
            for (StoredMessage m : r.messages()) {
                final String key = m.property(keyProperty);
                if (key == null) {
                    continue;
                }
                final byte[] body = m.bodyBytes();
                if (body.length == 0) {
                    live.remove(key);
                } else {
                    live.put(key, new Entry(m.properties(), body, m.storeTimestamp()));
                }
            }
            if (r.status() == PullStatus.NO_SUCH_QUEUE || r.nextOffset() <= offset) {
                return CompletableFuture.completedFuture(null);
            }
            return replay(r.nextOffset());
        });
    }

    /** Sets {@code key} to a record with these properties (the key property is added) and a non-empty body. */
    synchronized CompletableFuture<SendResult> put(final String key, final Map<String, String> properties,
                                                   final byte[] body) {
        if (body.length == 0) {
            throw new IllegalArgumentException("an empty body removes a key; use remove");
        }
        final Message record = Message.builder(topic).queueId(0).body(body).properties(properties)
                .property(keyProperty, key).build();
        live.put(key, new Entry(record.properties(), body, clock.getAsLong()));
        return messaging.send(record);
    }

    /** Removes {@code key} (an empty record). */
    synchronized CompletableFuture<SendResult> remove(final String key) {
        live.remove(key);
        return messaging.send(Message.builder(topic).queueId(0).body(new byte[0]).property(keyProperty, key).build());
    }

    Entry get(final String key) {
        return live.get(key);
    }

    /** The live records (a weakly consistent view). */
    Collection<Map.Entry<String, Entry>> entries() {
        return live.entrySet();
    }

    int size() {
        return live.size();
    }

    /**
     * Compacts when the log since the start holds more garbage than live records (and at least {@link #MIN_GARBAGE}),
     * or when a live record is older than half the store's retention.
     *
     * @return the compaction, or {@code null} when none was due (or one is running)
     */
    CompletableFuture<Void> compactIfDue() {
        final long start = Math.max(messaging.queryOffset(startGroup, topic, 0), messaging.minOffset(topic, 0));
        final long records = messaging.maxOffset(topic, 0) - start;
        final long garbage = records - live.size();
        final long oldestAllowed = clock.getAsLong() - messaging.retention().toMillis() / 2;
        final boolean aging = live.values().stream().anyMatch(e -> e.writtenAt() < oldestAllowed);
        if (garbage <= Math.max(MIN_GARBAGE, live.size()) && !aging) {
            return null;
        }
        return compact();
    }

    /** Copies every live record forward, then moves the start to the first copy. */
    CompletableFuture<Void> compact() {
        final List<CompletableFuture<SendResult>> copies = new ArrayList<>();
        final long begunAtMax;
        synchronized (this) {
            if (compacting) {
                return null;
            }
            compacting = true;
            begunAtMax = messaging.maxOffset(topic, 0);
            final long now = clock.getAsLong();
            for (Map.Entry<String, Entry> e : live.entrySet()) {
                final Entry entry = e.getValue();
                copies.add(messaging.send(Message.builder(topic).queueId(0).body(entry.body())
                        .properties(entry.properties()).property(COPIED, "true").build()));
                e.setValue(new Entry(entry.properties(), entry.body(), now));
            }
        }
        return CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new)).thenRun(() -> {
            // Every change issued before the copies is superseded by them (or was a removal): replay may start at the
            // first copy. With nothing live, everything up to where compaction began is garbage.
            final long newStart = copies.stream().mapToLong(c -> c.join().queueOffset()).min().orElse(begunAtMax);
            messaging.commitOffset(startGroup, topic, 0, newStart);
            LOG.info("{}: compacted to {} live records, replay starts at {}", topic, copies.size(), newStart);
        }).whenComplete((x, e) -> {
            synchronized (this) {
                compacting = false;
            }
            if (e != null) {
                LOG.warn("{}: compaction failed, the start stays where it was: {}", topic, e.toString());
            }
        });
    }
}
