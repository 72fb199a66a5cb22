package io.junction.kafka;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullStatus;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the transaction coordinator keeps what must outlive a broker crash, in two one-queue core topics.
 *
 * <p>{@value #STATES}: a table of transactional id → {@link TransactionRecord} kept as a log (the last record of an id
 * wins; the id travels in the property {@value #ID}). Replay reads from the table's start, an offset committed under
 * the group {@code %KAFKA%TXN-start}; {@link #compact} appends every live state again and moves the start to the
 * first copy, so replay stays proportional to the ids in use. The caller issues a state and its copies under one lock:
 * the core appends sends in the order they are issued, so a copy never lands after a newer state of its id.
 *
 * <p>{@value #BATCHES}: the held batches of a transaction whose commit is decided, one message per Kafka record batch
 * (its bytes as the producer sent them, so recovery decodes them exactly as Produce did), read back only when a crash
 * interrupted the commit. Retention removes them with their segment.
 */
final class TransactionLog {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionLog.class);
    static final String STATES = "%KAFKA%TXN";
    static final String BATCHES = "%KAFKA%TXN-BATCHES";
    /** The property naming a state record's transactional id (a core group name). */
    static final String ID = "__kafka.txn.id";
    private static final String START_GROUP = STATES + "-start";

    private final Messaging messaging;

    TransactionLog(final Messaging messaging) {
        this.messaging = messaging;
    }

    /** Creates the topics when needed and replays the states: the latest of each transactional id. */
    CompletableFuture<Map<String, TransactionRecord>> load() {
        return create(STATES).thenCompose(x -> create(BATCHES)).thenCompose(x -> {
            final long min = messaging.minOffset(STATES, 0);
            final long start = messaging.queryOffset(START_GROUP, STATES, 0);
            if (start >= 0 && start < min) {
                LOG.warn("{}: states {}..{} were deleted by retention before they were compacted", STATES, start,
                        min);
            }
            final Map<String, TransactionRecord> states = new HashMap<>();
            return replay(Math.max(start, min), states).thenApply(y -> states);
        });
    }

    private CompletableFuture<?> create(final String topic) {
        return messaging.route(topic).isPresent() ? CompletableFuture.completedFuture(null)
                : messaging.topics().createIfAbsent(TopicConfig.of(topic, 1));
    }

    private CompletableFuture<Void> replay(final long offset, final Map<String, TransactionRecord> states) {
        if (offset >= messaging.maxOffset(STATES, 0)) {
            return CompletableFuture.completedFuture(null);
        }
        final PullRequest page = new PullRequest(PartitionScan.READER, STATES, 0, offset, 256, null, 0);
        return messaging.pull(page).thenCompose(r -> {
            for (StoredMessage m : r.messages()) {
                final String id = m.property(ID);
                if (id == null) {
                    continue;
                }
                try {
                    states.put(id, TransactionRecord.decode(m.bodyBytes()));
                } catch (IllegalArgumentException e) {
                    LOG.warn("{}: skipping the unreadable state of {} at offset {}: {}", STATES, id,
                            m.queueOffset(), e.getMessage());
                }
            }
            if (r.status() == PullStatus.NO_SUCH_QUEUE || r.nextOffset() <= offset) {
                return CompletableFuture.completedFuture(null);
            }
            return replay(r.nextOffset(), states);
        });
    }

    /** Appends the state of {@code id}; completes once it is stored. */
    CompletableFuture<SendResult> write(final String id, final TransactionRecord state) {
        return messaging.send(Message.builder(STATES).queueId(0).body(state.encode()).property(ID, id).build());
    }

    /** Records appended to the states since their start: replay's length. */
    long length() {
        return messaging.maxOffset(STATES, 0)
                - Math.max(messaging.queryOffset(START_GROUP, STATES, 0), messaging.minOffset(STATES, 0));
    }

    /**
     * Appends every live state again, then moves the replay start to the first copy. The caller issues this under the
     * lock its writes are issued under.
     */
    CompletableFuture<Void> compact(final Map<String, TransactionRecord> live) {
        final long begunAt = messaging.maxOffset(STATES, 0);
        final List<CompletableFuture<SendResult>> copies = new ArrayList<>();
        live.forEach((id, state) -> copies.add(write(id, state)));
        return CompletableFuture.allOf(copies.toArray(CompletableFuture[]::new)).thenRun(() -> {
            final long start = copies.stream().mapToLong(c -> c.join().queueOffset()).min().orElse(begunAt);
            messaging.commitOffset(START_GROUP, STATES, 0, start);
        });
    }

    /** Stores one held Kafka record batch of a committing transaction; completes with its offset. */
    CompletableFuture<Long> writeBatch(final String id, final byte[] batch) {
        return messaging.send(Message.builder(BATCHES).queueId(0).body(batch).property(ID, id).build())
                .thenApply(SendResult::queueOffset);
    }

    /** The bytes of a batch stored by {@link #writeBatch}. */
    CompletableFuture<byte[]> readBatch(final long offset) {
        final PullRequest one = new PullRequest(PartitionScan.READER, BATCHES, 0, offset, 1, null, 0);
        return messaging.pull(one).thenApply(r -> {
            if (r.messages().isEmpty() || r.messages().get(0).queueOffset() != offset) {
                throw new IllegalStateException("held batch " + offset + " of " + BATCHES + " is gone ("
                        + r.status() + ")");
            }
            return r.messages().get(0).bodyBytes();
        });
    }
}
