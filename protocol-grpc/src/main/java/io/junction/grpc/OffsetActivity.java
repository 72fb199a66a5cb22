package io.junction.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.GetOffsetRequest;
import apache.rocketmq.v2.GetOffsetResponse;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.PullMessageRequest;
import apache.rocketmq.v2.PullMessageResponse;
import apache.rocketmq.v2.QueryOffsetRequest;
import apache.rocketmq.v2.QueryOffsetResponse;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.Status;
import apache.rocketmq.v2.UpdateOffsetRequest;
import apache.rocketmq.v2.UpdateOffsetResponse;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.stub.StreamObserver;
import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Offset consumption over gRPC: PullMessage reads one queue from an offset (long polling, streamed back as a status,
 * the messages, then the next offset), UpdateOffset and GetOffset write and read a group's committed position in a
 * queue, QueryOffset finds a queue's first offset, its end, or the first offset stored at a time. The client picks
 * its queues from the route and keeps its own positions, as a RocketMQ 4 pull consumer does: nothing here is POP.
 *
 * <p>Bad input answers the proto's codes: ILLEGAL_CONSUMER_GROUP / ILLEGAL_TOPIC for a missing name,
 * TOPIC_NOT_FOUND, NOT_FOUND for a queue the topic does not have, CONSUMER_GROUP_NOT_FOUND for an unknown group when
 * groups are not created on first use, ILLEGAL_OFFSET for a negative offset (or, to commit or pull, one past the
 * queue's end), ILLEGAL_FILTER_EXPRESSION, ILLEGAL_POLLING_TIME, BAD_REQUEST for a batch size out of range.
 */
final class OffsetActivity {
    private final Messaging messaging;
    private final GrpcSettings settings;
    private final Executor responses;

    /** @param responses where pulled messages are mapped and written (not on the store's threads) */
    OffsetActivity(final Messaging messaging, final GrpcSettings settings, final Executor responses) {
        this.messaging = messaging;
        this.settings = settings;
        this.responses = responses;
    }

    /** One queue a request names: the core topic, the queue id, and the namespace to show names in. */
    private record Queue(String topic, int id, String namespace) {
    }

    // ------------------------------------------------------------------------------------------------ pull

    /**
     * Answers with a status, then (status OK) every message found, then the offset to pull next. When nothing was
     * found the status is MESSAGE_NOT_FOUND and the next offset still follows (past the entries the filter skipped).
     * An offset below the queue's first (retention removed it) answers OFFSET_NOT_FOUND, one past its end
     * ILLEGAL_OFFSET, each followed by the offset to continue from.
     */
    void pull(final PullMessageRequest request, final Deadline deadline,
              final StreamObserver<PullMessageResponse> out) {
        final PullRequest first;
        final long until;
        final Queue queue;
        try {
            final String group = group(request.getGroup());
            queue = queue(request.getMessageQueue());
            if (request.getOffset() < 0) {
                throw Statuses.refuse(Code.ILLEGAL_OFFSET, "offset " + request.getOffset() + " is negative");
            }
            final int batch = request.getBatchSize();
            if (batch <= 0 || batch > ReceiveActivity.MAX_BATCH_SIZE) {
                throw Statuses.refuse(Code.BAD_REQUEST, "batch size " + batch + " not in 1.."
                        + ReceiveActivity.MAX_BATCH_SIZE);
            }
            final MessageFilter filter = ReceiveActivity.filter(request.getFilterExpression());
            long wait = request.hasLongPollingTimeout()
                    ? MessageMapping.millis(request.getLongPollingTimeout()) : settings.longPollingMillis();
            if (wait < 0) {
                throw Statuses.refuse(Code.ILLEGAL_POLLING_TIME, "long polling timeout is negative");
            }
            if (deadline != null) {
                wait = Math.min(wait, deadline.timeRemaining(TimeUnit.MILLISECONDS)
                        - ReceiveActivity.DEADLINE_MARGIN_MILLIS);
            }
            wait = Math.max(0, wait);
            requireGroup(request.getGroup());
            until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wait);
            first = new PullRequest(group, queue.topic(), queue.id(), request.getOffset(), batch, filter, wait);
        } catch (Statuses.Refusal r) {
            finish(out, r.status(), null);
            return;
        }
        final CompletableFuture<PullResult> answer = new CompletableFuture<>();
        final AtomicReference<CompletableFuture<PullResult>> reading = new AtomicReference<>();
        // A client that cancels (or whose deadline passes) frees the parked read at once.
        Context.current().addListener(context -> {
            answer.cancel(false);
            final CompletableFuture<PullResult> current = reading.get();
            if (current != null) {
                current.cancel(false);
            }
        }, Runnable::run);
        final CallAccess callAccess = CallAccess.current();
        read(first, until, answer, reading);
        answer.whenCompleteAsync((result, failure) -> {
            try {
                if (failure instanceof CancellationException) {
                    return; // the call is gone
                }
                if (failure != null) {
                    finish(out, Statuses.fromFailure(failure, Code.BAD_REQUEST), null);
                    return;
                }
                // The rules may have changed while the pull waited: decided again before messages go out (nothing
                // was taken: the client's offset stays where it was).
                final String refusal = result.status() == PullStatus.FOUND && callAccess != null
                        ? callAccess.refusalNow() : null;
                if (refusal != null) {
                    finish(out, Statuses.of(Code.FORBIDDEN, refusal), null);
                    return;
                }
                answer(out, first.offset(), queue, result);
            } catch (RuntimeException e) {
                out.onError(e); // the call was cancelled meanwhile
            }
        }, responses);
    }

    /**
     * Reads until something matches or the wait is over: a read whose entries all fail the filter answers at once
     * (it scans a bounded number of entries), so the next one goes on from where it stopped with the time left.
     */
    private void read(final PullRequest request, final long until, final CompletableFuture<PullResult> answer,
                      final AtomicReference<CompletableFuture<PullResult>> reading) {
        CompletableFuture<PullResult> read;
        try {
            read = messaging.pull(request);
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        reading.set(read);
        if (answer.isDone()) {
            read.cancel(false); // cancelled before this read began
            return;
        }
        read.whenComplete((result, failure) -> {
            if (failure != null) {
                answer.completeExceptionally(failure);
                return;
            }
            final long left = TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime());
            if (result.status() == PullStatus.NO_MATCHED_MESSAGE && result.nextOffset() > request.offset()
                    && left > 0 && !answer.isDone()) {
                read(new PullRequest(request.group(), request.topic(), request.queueId(), result.nextOffset(),
                        request.maxMessages(), request.filter(), left), until, answer, reading);
            } else {
                answer.complete(result);
            }
        });
    }

    private static void answer(final StreamObserver<PullMessageResponse> out, final long offset, final Queue queue,
                               final PullResult result) {
        switch (result.status()) {
            case FOUND -> {
                out.onNext(PullMessageResponse.newBuilder().setStatus(Statuses.OK).build());
                for (StoredMessage m : result.messages()) {
                    out.onNext(PullMessageResponse.newBuilder().setMessage(MessageMapping.toProto(m,
                            ResourceNames.shown(queue.namespace(), m.topic()), null, m.reconsumeTimes() + 1, 0))
                            .build());
                }
                finish(out, null, result.nextOffset());
            }
            case NO_NEW_MESSAGE, NO_MATCHED_MESSAGE -> finish(out, Statuses.of(Code.MESSAGE_NOT_FOUND,
                    "no new message"), result.nextOffset());
            case OFFSET_TOO_SMALL -> finish(out, Statuses.of(Code.OFFSET_NOT_FOUND, "offset " + offset
                    + " is below the queue's first offset " + result.minOffset()), result.nextOffset());
            case OFFSET_OVERFLOW -> finish(out, Statuses.of(Code.ILLEGAL_OFFSET, "offset " + offset
                    + " is past the queue's end " + result.maxOffset()), result.nextOffset());
            case NO_SUCH_QUEUE -> finish(out, Statuses.of(Code.NOT_FOUND, "queue " + queue.id() + " of topic "
                    + queue.topic() + " does not exist"), null);
        }
    }

    /** Writes {@code status} (unless null), then {@code nextOffset} (unless null), and ends the stream. */
    private static void finish(final StreamObserver<PullMessageResponse> out, final Status status,
                               final Long nextOffset) {
        if (status != null) {
            out.onNext(PullMessageResponse.newBuilder().setStatus(status).build());
        }
        if (nextOffset != null) {
            out.onNext(PullMessageResponse.newBuilder().setNextOffset(nextOffset).build());
        }
        out.onCompleted();
    }

    // ------------------------------------------------------------------------------------------------ offsets

    /** Commits a group's position in a queue: any offset from 0 to the queue's end. */
    UpdateOffsetResponse updateOffset(final UpdateOffsetRequest request) {
        try {
            final String group = group(request.getGroup());
            final Queue queue = queue(request.getMessageQueue());
            final long offset = request.getOffset();
            final long end = messaging.maxOffset(queue.topic(), queue.id());
            if (offset < 0 || offset > end) {
                throw Statuses.refuse(Code.ILLEGAL_OFFSET, "offset " + offset + " not in [0, " + end
                        + "] (the queue's end)");
            }
            requireGroup(request.getGroup());
            messaging.commitOffset(group, queue.topic(), queue.id(), offset);
            return UpdateOffsetResponse.newBuilder().setStatus(Statuses.OK).build();
        } catch (Statuses.Refusal r) {
            return UpdateOffsetResponse.newBuilder().setStatus(r.status()).build();
        }
    }

    /** A group's committed position in a queue; OFFSET_NOT_FOUND when it never committed one there. */
    GetOffsetResponse getOffset(final GetOffsetRequest request) {
        try {
            final String group = group(request.getGroup());
            final Queue queue = queue(request.getMessageQueue());
            requireGroup(request.getGroup());
            final long offset = messaging.queryOffset(group, queue.topic(), queue.id());
            if (offset < 0) {
                return GetOffsetResponse.newBuilder().setStatus(Statuses.of(Code.OFFSET_NOT_FOUND, "group "
                        + request.getGroup().getName() + " has committed no offset in queue " + queue.id()
                        + " of topic " + request.getMessageQueue().getTopic().getName())).build();
            }
            return GetOffsetResponse.newBuilder().setStatus(Statuses.OK).setOffset(offset).build();
        } catch (Statuses.Refusal r) {
            return GetOffsetResponse.newBuilder().setStatus(r.status()).build();
        }
    }

    /**
     * BEGINNING: the queue's first readable offset; END: the offset its next message will get; TIMESTAMP: the first
     * offset stored at or after the request's timestamp (the end when none is).
     */
    CompletableFuture<QueryOffsetResponse> queryOffset(final QueryOffsetRequest request) {
        try {
            final Queue queue = queue(request.getMessageQueue());
            return switch (request.getQueryOffsetPolicy()) {
                case BEGINNING -> CompletableFuture.completedFuture(
                        offset(messaging.minOffset(queue.topic(), queue.id())));
                case END -> CompletableFuture.completedFuture(offset(messaging.maxOffset(queue.topic(), queue.id())));
                case TIMESTAMP -> {
                    if (!request.hasTimestamp()) {
                        throw Statuses.refuse(Code.BAD_REQUEST, "the TIMESTAMP policy needs a timestamp");
                    }
                    yield messaging.searchOffset(queue.topic(), queue.id(),
                            MessageMapping.millis(request.getTimestamp())).thenApply(OffsetActivity::offset);
                }
                default -> throw Statuses.refuse(Code.BAD_REQUEST, "unknown query offset policy "
                        + request.getQueryOffsetPolicyValue());
            };
        } catch (Statuses.Refusal r) {
            return CompletableFuture.completedFuture(QueryOffsetResponse.newBuilder().setStatus(r.status()).build());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static QueryOffsetResponse offset(final long offset) {
        return QueryOffsetResponse.newBuilder().setStatus(Statuses.OK).setOffset(offset).build();
    }

    // ------------------------------------------------------------------------------------------------ checks

    private static String group(final Resource group) {
        if (group.getName().isEmpty()) {
            throw Statuses.refuse(Code.ILLEGAL_CONSUMER_GROUP, "consumer group is missing");
        }
        return ResourceNames.core(group);
    }

    /**
     * The group exists, or is created now when groups are created on first use; else CONSUMER_GROUP_NOT_FOUND. Asked
     * once the rest of a request passed its checks, so a refused request creates no group.
     */
    private void requireGroup(final Resource group) {
        if (messaging.groups().getOrCreate(ResourceNames.core(group)).isEmpty()) {
            throw Statuses.refuse(Code.CONSUMER_GROUP_NOT_FOUND, "consumer group " + group.getName()
                    + " does not exist");
        }
    }

    private Queue queue(final MessageQueue queue) {
        final Resource topic = queue.getTopic();
        if (topic.getName().isEmpty()) {
            throw Statuses.refuse(Code.ILLEGAL_TOPIC, "topic is missing");
        }
        final String name = ResourceNames.core(topic);
        final Optional<TopicConfig> route = messaging.route(name);
        if (route.isEmpty()) {
            throw Statuses.refuse(Code.TOPIC_NOT_FOUND, "topic " + topic.getName() + " does not exist");
        }
        if (queue.getId() < 0 || queue.getId() >= route.get().queueCount()) {
            throw Statuses.refuse(Code.NOT_FOUND, "topic " + topic.getName() + " has no queue " + queue.getId()
                    + " (queues 0.." + (route.get().queueCount() - 1) + ")");
        }
        return new Queue(name, queue.getId(), topic.getResourceNamespace());
    }
}
