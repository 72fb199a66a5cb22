package io.junction.mqtt;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.filter.FilterSpec;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Reads one core topic for one session, by offset (PULL with long polling), every queue in parallel.
 *
 * <p>Per queue: pull a batch from the current offset, hand every message that matches one of the session's filters
 * to the session, and pull the next batch only when the whole batch is finished with (QoS 0 written, QoS 1/2
 * acknowledged); then the offset moves past the batch and, for a persistent session, is committed under the session's
 * offset key. So a disconnect or a broker restart resumes from the first unacknowledged batch. While the session is
 * offline a returning pull is dropped without moving the offset. All methods run on the session's executor.
 */
final class TopicReader {
    private static final long RETRY_MS = 500;

    private final Session session;
    private final Messaging messaging;
    private final String coreTopic;
    private final MessageFilter filter;
    private QueueState[] queues;
    private boolean closed;
    /** Where queues start when the topic appears later: at its first message (it is newer than the subscription). */
    private final boolean startAtEnd;
    private boolean topicWasMissing;

    /** A pulled batch whose deliveries are not all finished yet. */
    private static final class Batch {
        final long start;
        final long next;
        int remaining;

        Batch(final long start, final long next) {
            this.start = start;
            this.next = next;
        }
    }

    private static final class QueueState {
        final int queueId;
        /** Where the next pull starts. */
        long offset;
        /** Last committed offset. */
        long committed;
        boolean pulling;
        /** The pull in progress (possibly parked in the store), cancelled when the reader closes. */
        CompletableFuture<PullResult> inFlight;
        final ArrayDeque<Batch> batches = new ArrayDeque<>();

        QueueState(final int queueId, final long offset) {
            this.queueId = queueId;
            this.offset = offset;
            this.committed = offset;
        }
    }

    /**
     * @param startAtEnd true for a new subscription on an existing topic (only messages from now on); false to resume
     *                   from committed offsets (a restored session) or to read a topic created after the subscription
     */
    TopicReader(final Session session, final Messaging messaging, final String coreTopic, final boolean startAtEnd) {
        this.session = session;
        this.messaging = messaging;
        this.coreTopic = coreTopic;
        this.startAtEnd = startAtEnd;
        // Messages other protocols sent carry no MQTT topic: they are delivered under the core topic's first level.
        final String fallbackTopic = CoreTopics.unescape(session.namespace.local(coreTopic));
        this.filter = new MessageFilter() {
            @Override
            public boolean matchesTagHash(final long tagHash) {
                return true;
            }

            @Override
            public boolean matches(final Map<String, String> properties) {
                return MqttTopicsKind.matches(session.filters(), fallbackTopic, properties);
            }

            @Override
            public FilterSpec spec() {
                return MqttTopicsKind.spec(fallbackTopic, session.filters());
            }
        };
        init();
    }

    String coreTopic() {
        return coreTopic;
    }

    private void init() {
        if (closed) {
            return;
        }
        final Optional<TopicConfig> route = messaging.route(coreTopic);
        if (route.isEmpty()) {
            topicWasMissing = true;
            session.executor().schedule(this::init, RETRY_MS, TimeUnit.MILLISECONDS);
            return;
        }
        final int n = route.get().queueCount();
        queues = new QueueState[n];
        for (int q = 0; q < n; q++) {
            long offset = session.persistent() && !startAtEnd
                    ? Math.max(messaging.queryOffset(session.offsetKey(), coreTopic, q),
                            session.restoredOffset(coreTopic, q)) : -1;
            if (offset < 0) {
                offset = startAtEnd && !topicWasMissing ? messaging.maxOffset(coreTopic, q)
                        : messaging.minOffset(coreTopic, q);
                if (session.persistent()) {
                    messaging.commitOffset(session.offsetKey(), coreTopic, q, offset);
                }
            }
            queues[q] = new QueueState(q, offset);
        }
        resume();
    }

    /** Adds this reader's committed offset of each queue to {@code out}. */
    void committedOffsets(final Map<Qos2Ledger.Queue, Long> out) {
        if (queues != null) {
            for (QueueState q : queues) {
                out.put(new Qos2Ledger.Queue(coreTopic, q.queueId), q.committed);
            }
        }
    }

    /** Starts pulling every idle queue (after a subscribe, a reconnect, or a batch finished). */
    void resume() {
        if (closed || queues == null) {
            return;
        }
        for (QueueState q : queues) {
            pull(q);
        }
    }

    /** Stops reading; a pull parked in the store is dropped now rather than when its long poll times out. */
    void close() {
        closed = true;
        if (queues != null) {
            for (QueueState q : queues) {
                if (q.inFlight != null) {
                    q.inFlight.cancel(false);
                }
            }
        }
    }

    private void pull(final QueueState q) {
        if (closed || q.pulling || !session.online() || !session.wantsMore()) {
            return;
        }
        q.pulling = true;
        q.inFlight = messaging.pull(new PullRequest(session.offsetKey(), coreTopic, q.queueId, q.offset, 128, filter,
                session.longPollMs()));
        q.inFlight.whenCompleteAsync((r, e) -> onPulled(q, r, e), session.executor());
    }

    private void onPulled(final QueueState q, final PullResult r, final Throwable e) {
        q.pulling = false;
        q.inFlight = null;
        if (closed) {
            return;
        }
        if (e != null || r == null) {
            session.executor().schedule(() -> pull(q), RETRY_MS, TimeUnit.MILLISECONDS);
            return;
        }
        if (!session.online()) {
            return; // dropped: pulled again from the same offset on reconnect
        }
        switch (r.status()) {
            case FOUND -> deliver(q, r);
            case NO_SUCH_QUEUE -> session.executor().schedule(() -> pull(q), RETRY_MS, TimeUnit.MILLISECONDS);
            default -> {
                q.offset = r.nextOffset();
                commit(q);
                pull(q);
            }
        }
    }

    /**
     * Hands a batch to the session and pulls on while the session wants more (its queue is short): several batches
     * may be outstanding; the committed offset is the start of the oldest unfinished one.
     */
    private void deliver(final QueueState q, final PullResult r) {
        final Batch b = new Batch(q.offset, r.nextOffset());
        q.offset = r.nextOffset();
        q.batches.add(b);
        b.remaining = 1; // guard: the batch cannot finish while it is being handed over
        for (StoredMessage m : r.messages()) {
            b.remaining++;
            if (!session.offer(coreTopic, m, () -> finished(q, b), null)) {
                b.remaining--;
            }
        }
        session.drain();
        finished(q, b);
        pull(q);
    }

    private void finished(final QueueState q, final Batch b) {
        if (--b.remaining == 0 && !closed) {
            while (!q.batches.isEmpty() && q.batches.peek().remaining == 0) {
                q.batches.poll();
            }
            commit(q);
        }
    }

    private void commit(final QueueState q) {
        final long at = q.batches.isEmpty() ? q.offset : q.batches.peek().start;
        if (at != q.committed) {
            q.committed = at;
            if (session.persistent()) {
                messaging.commitOffset(session.offsetKey(), coreTopic, q.queueId, at);
            }
        }
    }
}
