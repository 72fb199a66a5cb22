package io.junction.remoting.reply;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads reply topics from their end and pushes each reply another protocol stored there (an MQTT or JMS responder
 * answering a RocketMQ request: its reply-to address is the reply topic) to the requester's connection, found by the
 * reply's correlation id. RocketMQ's own replies ({@code MSG_TYPE=reply}) were pushed as they were sent and are
 * skipped, as are replies whose request is unknown here or expired.
 *
 * <p>One long-polling read per queue of each watched topic, continued on one thread of its own.
 */
public final class ReplyRelay implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplyRelay.class);
    /** The group the relay reads as (statistics only: reads move no offsets). */
    static final String GROUP = "%JUNCTION%reply-relay";
    private static final int BATCH = 32;
    private static final long POLL_MILLIS = 15_000;
    private static final long RETRY_MILLIS = 1000;

    private final Messaging messaging;
    private final PendingRequests pending;
    private final ReplyPush push;
    private final Map<String, CompletableFuture<Void>> watched = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<PullResult>> reads = new ConcurrentHashMap<>();
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "junction-remoting-reply-relay");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean closed;

    public ReplyRelay(final Messaging messaging, final PendingRequests pending, final ReplyPush push) {
        this.messaging = messaging;
        this.pending = pending;
        this.push = push;
    }

    /**
     * Starts reading a reply topic (created with one queue if missing) unless already reading it; completes once
     * reading starts at the topic's current end, so a reply stored after that is seen.
     */
    public CompletableFuture<Void> watch(final String topic) {
        return watched.computeIfAbsent(topic, t -> messaging.topics().createIfAbsent(TopicConfig.of(t, 1))
                .thenAccept(config -> {
                    for (int q = 0; q < config.queueCount(); q++) {
                        read(t, q, messaging.maxOffset(t, q));
                    }
                }).whenComplete((v, e) -> {
                    if (e != null) {
                        watched.remove(t); // the next request tries again
                    }
                }));
    }

    private void read(final String topic, final int queueId, final long offset) {
        if (closed) {
            return;
        }
        final String key = topic + '\u0000' + queueId;
        final CompletableFuture<PullResult> read = messaging.pull(new PullRequest(GROUP, topic, queueId, offset,
                BATCH, MessageFilter.ALL, POLL_MILLIS));
        reads.put(key, read);
        read.whenCompleteAsync((r, e) -> {
            reads.remove(key, read);
            if (closed) {
                return;
            }
            if (e != null) {
                LOG.debug("reading replies of {}:{} failed; trying again", topic, queueId, e);
                executor.schedule(() -> read(topic, queueId, offset), RETRY_MILLIS, TimeUnit.MILLISECONDS);
                return;
            }
            if (r.status() == PullStatus.NO_SUCH_QUEUE) {
                watched.remove(topic); // deleted: a later request watches it afresh
                return;
            }
            r.messages().forEach(this::relay);
            read(topic, queueId, r.status() == PullStatus.NO_NEW_MESSAGE ? offset : r.nextOffset());
        }, executor);
    }

    private void relay(final StoredMessage m) {
        if (ReplyProtocol.REPLY.equals(m.property(ReplyProtocol.MSG_TYPE))) {
            return;
        }
        final PendingRequests.Requester requester = pending.take(m.property(MessageProperties.CORRELATION_ID));
        if (requester == null) {
            return;
        }
        push.push(requester.channel(), requester.clientId(), push.of(m)).thenAccept(failure -> {
            if (failure != null) {
                LOG.debug("reply {} not delivered: {}", m.offsetMessageId(), failure);
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        reads.values().forEach(r -> r.cancel(false));
        executor.shutdownNow();
    }
}
