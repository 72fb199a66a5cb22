package io.junction.core.engine;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.log.CommitLog;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.queue.ConsumeQueueStore;
import io.junction.core.timer.TimerLog;
import io.junction.core.timer.TimerService;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** The store as the {@link TimerService} sees it: the narrow {@link TimerLog} view over the store's parts. */
final class TimerStoreAccess implements TimerLog {
    private final ConsumeQueueStore queues;
    private final QueueReader reader;
    private final MessageQueries queries;
    private final CommitLog log;
    private final Function<String, Optional<TopicConfig>> topics;
    private final Function<Message, CompletableFuture<?>> deliverNow;
    private final Function<Message, CompletableFuture<?>> appendToTimerQueue;

    /**
     * @param deliverNow         appends a message to its topic now (no timer routing)
     * @param appendToTimerQueue appends a record to the timer queue
     */
    TimerStoreAccess(final ConsumeQueueStore queues, final QueueReader reader, final MessageQueries queries,
                     final CommitLog log, final Function<String, Optional<TopicConfig>> topics,
                     final Function<Message, CompletableFuture<?>> deliverNow,
                     final Function<Message, CompletableFuture<?>> appendToTimerQueue) {
        this.appendToTimerQueue = appendToTimerQueue;
        this.queues = queues;
        this.reader = reader;
        this.queries = queries;
        this.log = log;
        this.topics = topics;
        this.deliverNow = deliverNow;
    }

    @Override
    public long timerQueueMinOffset() {
        return queues.minOffset(TimerService.TOPIC, 0);
    }

    @Override
    public long timerQueueMaxOffset() {
        return queues.maxOffset(TimerService.TOPIC, 0);
    }

    @Override
    public PullResult readTimerQueue(final long offset, final int max) {
        return reader.read(new PullRequest(null, TimerService.TOPIC, 0, offset, max, null, 0));
    }

    @Override
    public StoredMessage readRecord(final long logOffset) {
        return queries.at(logOffset).orElse(null);
    }

    @Override
    public long logWriteOffset() {
        return log.writeOffset();
    }

    @Override
    public long logFlushedOffset() {
        return log.flushedOffset();
    }

    @Override
    public CompletableFuture<?> appendToTimerQueue(final Message record) {
        return appendToTimerQueue.apply(record);
    }

    @Override
    public CompletableFuture<?> deliver(final Message message) {
        final Optional<TopicConfig> topic = topics.apply(message.topic());
        Message m = message;
        if (topic.isPresent() && message.queueId() >= topic.get().queueCount()) {
            // The topic shrank since: let the core pick a queue.
            m = new Message(message.topic(), Message.ANY_QUEUE, message.body(), message.flag(),
                    message.properties(), message.sysFlag(), message.bornTimestamp(), message.bornHost(),
                    message.reconsumeTimes());
        }
        return deliverNow.apply(m);
    }

    @Override
    public boolean deliveredAfter(final String topic, final String uniqueId, final long deliverAt,
                                  final long afterLogOffset) {
        final String at = Long.toString(deliverAt);
        for (long offset : queries.candidates(topic, uniqueId)) {
            if (offset <= afterLogOffset) {
                continue;
            }
            final Optional<StoredMessage> m = queries.at(offset);
            if (m.isPresent() && uniqueId.equals(m.get().uniqueId()) && topic.equals(m.get().topic())
                    && at.equals(m.get().property(MessageProperties.DELIVER_AT))) {
                return true;
            }
        }
        return false;
    }
}
