package io.junction.core.engine;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Retention of compacted topics ({@link TopicConfig#compacted()}): before retention deletes the log below an offset,
 * the latest message of each key of a compacted topic that lies there is copied to the end of its queue, so retention
 * never takes the last value of a key; a key whose latest message is a tombstone
 * ({@link MessageProperties#TOMBSTONE}) is not copied, and leaves with its segment. The key of a message is its
 * message group, else its {@code KEYS}; messages without either are not kept.
 *
 * <p>Queue offsets never change: a copy is a new message at the queue's end (same body, properties, born time and
 * queue), and the original goes with its segment, so readers of a compacted queue see gaps where older values were,
 * as Kafka consumers of a compacted topic do. Finding the latest message of each key reads the whole queue, which
 * is done only when a segment is about to go.
 */
final class CompactedRetention {
    /** Messages read per pull while scanning a queue. */
    private static final int READ_BATCH = 1024;
    /** Copies appended per batch (a batch must fit one log segment). */
    private static final int COPY_BATCH = 256;
    /** The group name the scans read as (nothing is committed under it). */
    private static final String READER = "%SYS%COMPACTION";

    private final Supplier<Collection<TopicConfig>> topics;
    private final Function<PullRequest, PullResult> reader;
    private final BiFunction<List<Message>, TopicConfig, CompletableFuture<List<SendResult>>> appender;

    CompactedRetention(final Supplier<Collection<TopicConfig>> topics, final Function<PullRequest, PullResult> reader,
                       final BiFunction<List<Message>, TopicConfig, CompletableFuture<List<SendResult>>> appender) {
        this.topics = topics;
        this.reader = reader;
        this.appender = appender;
    }

    /**
     * Copies the latest message of every key of every compacted queue stored below log offset {@code below}; the
     * future completes once every copy is stored.
     */
    CompletableFuture<Void> carryForward(final long below) {
        final List<CompletableFuture<List<SendResult>>> copies = new ArrayList<>();
        for (TopicConfig topic : topics.get()) {
            if (!topic.compacted()) {
                continue;
            }
            for (int q = 0; q < topic.queueCount(); q++) {
                final List<Message> keep = latestBelow(topic.name(), q, below);
                for (int i = 0; i < keep.size(); i += COPY_BATCH) {
                    copies.add(appender.apply(keep.subList(i, Math.min(keep.size(), i + COPY_BATCH)), topic));
                }
            }
        }
        return CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new));
    }

    /** The copies to make of one queue: latest messages of their keys below {@code below}, tombstones left out. */
    private List<Message> latestBelow(final String topic, final int queueId, final long below) {
        final Map<String, StoredMessage> latest = new LinkedHashMap<>();
        long offset = 0;
        while (true) {
            final PullResult r = reader.apply(new PullRequest(READER, topic, queueId, offset, READ_BATCH, null, 0));
            if (r.status() == PullStatus.OFFSET_TOO_SMALL) {
                final long first = Math.max(r.minOffset(), r.nextOffset());
                if (first <= offset) {
                    break;
                }
                offset = first;
                continue;
            }
            if (r.status() != PullStatus.FOUND || r.messages().isEmpty()) {
                break;
            }
            for (StoredMessage m : r.messages()) {
                final String key = key(m);
                if (key != null) {
                    latest.remove(key); // re-inserted last: copies keep the order of their originals
                    latest.put(key, m);
                }
            }
            offset = r.nextOffset();
        }
        final List<Message> keep = new ArrayList<>();
        for (StoredMessage m : latest.values()) {
            if (m.commitLogOffset() < below && !"true".equals(m.property(MessageProperties.TOMBSTONE))) {
                keep.add(Message.builder(topic).queueId(queueId).body(m.bodyBytes()).flag(m.flag())
                        .properties(m.properties()).bornTimestamp(m.bornTimestamp()).bornHost(m.bornHost())
                        .build());
            }
        }
        return keep;
    }

    /** The compaction key: the message group, else the keys. */
    static String key(final StoredMessage m) {
        final String group = m.property(MessageProperties.MESSAGE_GROUP);
        if (group != null && !group.isEmpty()) {
            return group;
        }
        final String keys = m.keys();
        return keys == null || keys.isEmpty() ? null : keys;
    }
}
