package io.junction.core.engine;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.SendResult;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.Message;
import io.junction.core.meta.ConsumerOffsets;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.pop.PopStore;
import io.junction.core.queue.ConsumeQueueStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongFunction;

/** The store as POP sees it: the narrow {@link PopStore} view over the store's parts. */
final class PopStoreAccess implements PopStore {
    private final Messaging.TopicAdmin topics;
    private final Messaging.GroupAdmin groups;
    private final BiFunction<String, Integer, CompletableFuture<TopicConfig>> ensureTopic;
    private final QueueReader reader;
    private final ConsumeQueueStore queues;
    private final ConsumerOffsets offsets;
    private final LongPollWaiters waiters;
    private final Executor readPool;
    private final Function<Message, CompletableFuture<SendResult>> send;
    private final Function<Message, CompletableFuture<SendResult>> appendRecord;
    private final Function<Message, CompletableFuture<SendResult>> appendUnforcedRecord;
    private final LongFunction<CompletableFuture<Void>> whenDurable;

    PopStoreAccess(final Messaging.TopicAdmin topics, final Messaging.GroupAdmin groups,
                   final BiFunction<String, Integer, CompletableFuture<TopicConfig>> ensureTopic,
                   final QueueReader reader, final ConsumeQueueStore queues,
                   final ConsumerOffsets offsets, final LongPollWaiters waiters, final Executor readPool,
                   final Function<Message, CompletableFuture<SendResult>> send,
                   final Function<Message, CompletableFuture<SendResult>> appendRecord,
                   final Function<Message, CompletableFuture<SendResult>> appendUnforcedRecord,
                   final LongFunction<CompletableFuture<Void>> whenDurable) {
        this.topics = topics;
        this.groups = groups;
        this.ensureTopic = ensureTopic;
        this.reader = reader;
        this.queues = queues;
        this.offsets = offsets;
        this.waiters = waiters;
        this.readPool = readPool;
        this.send = send;
        this.appendRecord = appendRecord;
        this.appendUnforcedRecord = appendUnforcedRecord;
        this.whenDurable = whenDurable;
    }

    @Override
    public Optional<TopicConfig> topic(final String name) {
        return topics.get(name);
    }

    @Override
    public CompletableFuture<TopicConfig> ensureTopic(final String name, final int queueCount) {
        final Optional<TopicConfig> existing = topics.get(name);
        return existing.isPresent() ? CompletableFuture.completedFuture(existing.get())
                : ensureTopic.apply(name, queueCount);
    }

    @Override
    public Optional<GroupConfig> group(final String name) {
        return groups.getOrCreate(name);
    }

    @Override
    public PullResult read(final String topic, final int queueId, final long offset, final int max,
                           final MessageFilter filter) {
        return reader.read(new PullRequest(null, topic, queueId, offset, max, filter, 0));
    }

    @Override
    public long minOffset(final String topic, final int queueId) {
        return queues.minOffset(topic, queueId);
    }

    @Override
    public long maxOffset(final String topic, final int queueId) {
        return queues.maxOffset(topic, queueId);
    }

    @Override
    public CompletableFuture<SendResult> append(final Message message) {
        return send.apply(message);
    }

    @Override
    public CompletableFuture<SendResult> appendRecord(final Message record) {
        return appendRecord.apply(record);
    }

    @Override
    public CompletableFuture<SendResult> appendUnforcedRecord(final Message record) {
        return appendUnforcedRecord.apply(record);
    }

    @Override
    public CompletableFuture<Void> whenDurable(final SendResult appended) {
        return whenDurable.apply(appended.commitLogOffset());
    }

    @Override
    public long committedOffset(final String group, final String topic, final int queueId) {
        return offsets.query(group, topic, queueId);
    }

    @Override
    public void commitOffset(final String group, final String topic, final int queueId, final long offset) {
        offsets.commit(group, topic, queueId, offset);
    }

    @Override
    public Runnable parkAny(final List<QueueRef> refs, final long waitMillis, final Runnable retry) {
        final LongPollWaiters.Parked parked = waiters.parkAny(refs.stream()
                .map(r -> new LongPollWaiters.QueueKey(r.topic(), r.queueId())).toList(), waitMillis, retry);
        return parked == null ? null : parked::cancel;
    }

    @Override
    public void wake(final String topic, final int queueId) {
        waiters.arrived(topic, queueId);
    }

    @Override
    public Executor readExecutor() {
        return readPool;
    }
}
