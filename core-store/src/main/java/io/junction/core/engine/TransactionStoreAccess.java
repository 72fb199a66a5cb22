package io.junction.core.engine;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.index.MessageIndex;
import io.junction.core.log.CommitLog;
import io.junction.core.log.LogAppender;
import io.junction.core.log.RecordCodec;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.ConsumerOffsets;
import io.junction.core.meta.TopicConfig;
import io.junction.core.queue.ConsumeQueueStore;
import io.junction.core.txn.TransactionStore;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** The store as transactions see it: the narrow {@link TransactionStore} view over the store's parts. */
final class TransactionStoreAccess implements TransactionStore {
    /** Pseudo-group under which the replay positions of the transaction topics are kept. */
    static final String REPLAY_GROUP = "CID_SYS_RMQ_TRANS";

    private final LogAppender appender;
    private final CommitLog log;
    private final QueueReader reader;
    private final ConsumeQueueStore queues;
    private final MessageIndex index;
    private final ConsumerOffsets offsets;
    private final InetSocketAddress storeHost;
    private final Function<String, Optional<TopicConfig>> topics;
    private final Function<Message, CompletableFuture<?>> send;

    TransactionStoreAccess(final LogAppender appender, final CommitLog log, final QueueReader reader,
                           final ConsumeQueueStore queues, final MessageIndex index, final ConsumerOffsets offsets,
                           final InetSocketAddress storeHost, final Function<String, Optional<TopicConfig>> topics,
                           final Function<Message, CompletableFuture<?>> send) {
        this.appender = appender;
        this.log = log;
        this.reader = reader;
        this.queues = queues;
        this.index = index;
        this.offsets = offsets;
        this.storeHost = storeHost;
        this.topics = topics;
        this.send = send;
    }

    @Override
    public CompletableFuture<Stored> appendSystem(final Message message) {
        final ByteBuffer record;
        try {
            record = RecordCodec.encode(message, storeHost);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_MESSAGE, e.getMessage()));
        }
        return appender.append(record, message.topic(), 0).thenApply(r -> new Stored(r.physicalOffset(),
                r.queueOffset(), r.storeTimestamp(), storeHost));
    }

    @Override
    public CompletableFuture<?> deliver(final Message message) {
        final Optional<TopicConfig> topic = topics.apply(message.topic());
        Message m = message;
        if (topic.isPresent() && message.queueId() >= topic.get().queueCount()) {
            // The topic shrank since the half message was stored: let the core pick a queue.
            m = new Message(message.topic(), Message.ANY_QUEUE, message.body(), message.flag(), message.properties(),
                    message.sysFlag(), message.bornTimestamp(), message.bornHost(), message.reconsumeTimes());
        }
        return send.apply(m);
    }

    @Override
    public PullResult read(final String systemTopic, final long offset, final int max) {
        return reader.read(new PullRequest(null, systemTopic, 0, offset, max, null, 0));
    }

    @Override
    public long minOffset(final String systemTopic) {
        return queues.minOffset(systemTopic, 0);
    }

    @Override
    public long maxOffset(final String systemTopic) {
        return queues.maxOffset(systemTopic, 0);
    }

    @Override
    public StoredMessage readRecord(final long logOffset) {
        if (logOffset < 0) {
            return null;
        }
        final ByteBuffer record = log.readRecord(logOffset);
        return record == null ? null : RecordCodec.decode(record);
    }

    @Override
    public long replayPosition(final String systemTopic) {
        return offsets.query(REPLAY_GROUP, systemTopic, 0);
    }

    @Override
    public void saveReplayPosition(final String systemTopic, final long offset) {
        offsets.commit(REPLAY_GROUP, systemTopic, 0, offset);
    }

    @Override
    public boolean storedAfter(final String topic, final String uniqueId, final long afterLogOffset) {
        for (long offset : index.find(topic, uniqueId, 0, Long.MAX_VALUE, 32)) {
            if (offset <= afterLogOffset) {
                continue;
            }
            final StoredMessage m = readRecord(offset);
            if (m != null && uniqueId.equals(m.uniqueId()) && topic.equals(m.topic())) {
                return true;
            }
        }
        return false;
    }
}
