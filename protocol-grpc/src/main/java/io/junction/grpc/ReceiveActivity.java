package io.junction.grpc;

import apache.rocketmq.v2.AckMessageEntry;
import apache.rocketmq.v2.AckMessageRequest;
import apache.rocketmq.v2.AckMessageResponse;
import apache.rocketmq.v2.AckMessageResultEntry;
import apache.rocketmq.v2.ChangeInvisibleDurationRequest;
import apache.rocketmq.v2.ChangeInvisibleDurationResponse;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.FilterExpression;
import apache.rocketmq.v2.FilterType;
import apache.rocketmq.v2.ForwardMessageToDeadLetterQueueRequest;
import apache.rocketmq.v2.ForwardMessageToDeadLetterQueueResponse;
import apache.rocketmq.v2.ReceiveMessageRequest;
import apache.rocketmq.v2.ReceiveMessageResponse;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.Status;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.stub.StreamObserver;
import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PopStart;
import io.junction.core.PoppedMessage;
import io.junction.core.filter.Filters;
import io.junction.core.filter.InvalidFilterException;
import io.junction.core.filter.MessageFilter;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.clients.PopConsumers;
import io.junction.spi.kit.HeldMessages;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * POP consumption over gRPC: ReceiveMessage (a long-polling pop streamed back as status, messages, delivery
 * timestamp), AckMessage, ChangeInvisibleDuration and ForwardMessageToDeadLetterQueue. Receipt handles are the
 * core's, handed out unchanged.
 */
final class ReceiveActivity {
    /** Batch sizes above this are refused as absurd; those up to it are served {@link PopRequest#CLIENT_BATCH}. */
    static final int MAX_BATCH_SIZE = 1024;
    /** Time kept back from the caller's deadline to answer before it passes. */
    static final long DEADLINE_MARGIN_MILLIS = 1_000;

    private final Messaging messaging;
    private final GrpcSettings settings;
    /** Push consumers' messages, kept invisible while they hold them; every settlement goes through it. */
    private final HeldMessages<String> held;
    private final Executor responses;
    private final PopConsumers popConsumers;

    /** @param responses where a receive's messages are mapped and written (not on the store's thread) */
    ReceiveActivity(final Messaging messaging, final GrpcSettings settings, final HeldMessages<String> held,
                    final Executor responses, final PopConsumers popConsumers) {
        this.popConsumers = popConsumers;
        this.responses = responses;
        this.messaging = messaging;
        this.settings = settings;
        this.held = held;
    }

    /**
     * @param clientId the receiving client; a receive with {@code auto_renew} (push consumers) has its messages kept
     *                 invisible for it by {@link HeldMessages} until it acks them
     */
    void receive(final ReceiveMessageRequest request, final String clientId, final Deadline deadline,
                 final StreamObserver<ReceiveMessageResponse> out) {
        final PopRequest pop;
        final long invisible;
        try {
            final String group = requireGroup(request.getGroup());
            final Resource topicResource = request.getMessageQueue().getTopic();
            final String topic = ResourceNames.core(topicResource);
            if (topicResource.getName().isEmpty()) {
                throw Statuses.refuse(Code.ILLEGAL_TOPIC, "topic is missing");
            }
            final int batch = request.getBatchSize();
            if (batch <= 0 || batch > MAX_BATCH_SIZE) {
                throw Statuses.refuse(Code.BAD_REQUEST, "batch size " + batch + " not in 1.." + MAX_BATCH_SIZE);
            }
            if (request.getAutoRenew() && !request.hasInvisibleDuration()) {
                invisible = settings.pushInvisibleMillis();
            } else {
                if (!request.hasInvisibleDuration()) {
                    throw Statuses.refuse(Code.ILLEGAL_INVISIBLE_TIME, "invisible duration is missing");
                }
                invisible = MessageMapping.millis(request.getInvisibleDuration());
                if (invisible < settings.minInvisibleMillis() || invisible > settings.maxInvisibleMillis()) {
                    throw Statuses.refuse(Code.ILLEGAL_INVISIBLE_TIME, "invisible duration " + invisible
                            + " ms not in [" + settings.minInvisibleMillis() + ", " + settings.maxInvisibleMillis()
                            + "]");
                }
            }
            long wait = request.hasLongPollingTimeout()
                    ? MessageMapping.millis(request.getLongPollingTimeout()) : settings.longPollingMillis();
            if (wait < 0) {
                throw Statuses.refuse(Code.ILLEGAL_POLLING_TIME, "long polling timeout is negative");
            }
            if (deadline != null) {
                wait = Math.min(wait, deadline.timeRemaining(TimeUnit.MILLISECONDS) - DEADLINE_MARGIN_MILLIS);
            }
            // A group new to a queue starts where RocketMQ's proxy starts it (ConsumeInitMode.MAX).
            pop = new PopRequest(group, topic, filter(request.getFilterExpression()),
                    Math.min(batch, PopRequest.CLIENT_BATCH), invisible, Math.max(0, wait), PopStart.LATEST);
        } catch (Statuses.Refusal r) {
            finish(out, r.status());
            return;
        }
        final boolean renew = request.getAutoRenew() && !clientId.isEmpty();
        final CallAccess callAccess = CallAccess.current();
        final String namespace = request.getMessageQueue().getTopic().getResourceNamespace();
        final InetSocketAddress remote = ClientMetadata.remote();
        popConsumers.popped(pop.group(), "grpc", clientId, ClientRegistry.address(remote));
        CompletableFuture<PopResult> popped;
        try {
            popped = messaging.pop(pop);
        } catch (RuntimeException e) {
            popped = CompletableFuture.failedFuture(e);
        }
        // A client that cancels (or whose deadline passes) frees a parked pop, so it takes no message for nobody; the
        // call's context is cancelled when it ends normally too, which is a no-op on a completed pop.
        final CompletableFuture<PopResult> waiting = popped;
        Context.current().addListener(context -> waiting.cancel(false), Runnable::run);
        popped.whenCompleteAsync((result, failure) -> {
            // The rules may have changed while the receive waited: decided again before messages go out.
            final String refusal = failure == null && !result.messages().isEmpty() && callAccess != null
                    ? callAccess.refusalNow() : null;
            try {
                if (failure instanceof CancellationException) {
                    return; // the call is gone; nothing was taken for it
                } else if (failure != null) {
                    finish(out, Statuses.fromFailure(failure, Code.BAD_REQUEST));
                } else if (result.messages().isEmpty()) {
                    finish(out, Statuses.of(Code.MESSAGE_NOT_FOUND, "no new message"));
                } else if (refusal != null) {
                    // no longer allowed: the messages go back to the group at once, not to this caller
                    held.giveBack(pop.group(), result.messages());
                    finish(out, Statuses.of(Code.FORBIDDEN, refusal));
                } else {
                    if (renew) {
                        for (PoppedMessage p : result.messages()) {
                            held.hold(clientId, pop.group(), p.receiptHandle(), invisible, true);
                        }
                    }
                    out.onNext(ReceiveMessageResponse.newBuilder().setStatus(Statuses.OK).build());
                    for (PoppedMessage p : result.messages()) {
                        out.onNext(ReceiveMessageResponse.newBuilder().setMessage(MessageMapping.toProto(
                                p.message(), ResourceNames.shown(namespace, p.topic()), p.receiptHandle(), p.reconsumeTimes() + 1, invisible))
                                .build());
                    }
                    out.onNext(ReceiveMessageResponse.newBuilder()
                            .setDeliveryTimestamp(MessageMapping.timestamp(System.currentTimeMillis())).build());
                    out.onCompleted();
                }
            } catch (RuntimeException e) {
                // the call was cancelled: the messages come back after their invisible time
                if (renew) {
                    for (PoppedMessage p : result.messages()) {
                        held.release(p.receiptHandle());
                    }
                }
                out.onError(e);
            }
        }, responses);
    }

    private static void finish(final StreamObserver<ReceiveMessageResponse> out, final Status status) {
        out.onNext(ReceiveMessageResponse.newBuilder().setStatus(status).build());
        out.onCompleted();
    }

    /** The core filter for a subscription's expression; ILLEGAL_FILTER_EXPRESSION when it does not compile. */
    static MessageFilter filter(final FilterExpression expression) {
        final String text = expression.getExpression();
        try {
            if (expression.getType() == FilterType.SQL) {
                return Filters.compile("SQL92", text);
            }
            return Filters.compile("TAG", text.isBlank() ? "*" : text);
        } catch (InvalidFilterException e) {
            throw Statuses.refuse(Code.ILLEGAL_FILTER_EXPRESSION, "filter '" + text + "': " + e.getMessage());
        }
    }

    private static String requireGroup(final Resource group) {
        if (group.getName().isEmpty()) {
            throw Statuses.refuse(Code.ILLEGAL_CONSUMER_GROUP, "consumer group is missing");
        }
        return ResourceNames.core(group);
    }

    CompletableFuture<AckMessageResponse> ack(final AckMessageRequest request) {
        final String group = ResourceNames.core(request.getGroup());
        if (request.getGroup().getName().isEmpty()) {
            return CompletableFuture.completedFuture(AckMessageResponse.newBuilder()
                    .setStatus(Statuses.of(Code.ILLEGAL_CONSUMER_GROUP, "consumer group is missing")).build());
        }
        if (request.getEntriesCount() == 0) {
            return CompletableFuture.completedFuture(AckMessageResponse.newBuilder()
                    .setStatus(Statuses.of(Code.BAD_REQUEST, "no entry to acknowledge")).build());
        }
        final List<CompletableFuture<AckMessageResultEntry>> results = new ArrayList<>();
        for (AckMessageEntry e : request.getEntriesList()) {
            results.add(held.ack(group, e.getReceiptHandle()).handle((v, failure) ->
                    AckMessageResultEntry.newBuilder().setMessageId(e.getMessageId())
                            .setReceiptHandle(e.getReceiptHandle())
                            .setStatus(failure == null ? Statuses.OK
                                    : Statuses.fromFailure(failure, Code.INVALID_RECEIPT_HANDLE)).build()));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(v -> {
            final AckMessageResponse.Builder b = AckMessageResponse.newBuilder();
            Status common = null;
            boolean mixed = false;
            for (CompletableFuture<AckMessageResultEntry> f : results) {
                final AckMessageResultEntry e = f.join();
                b.addEntries(e);
                if (common == null) {
                    common = e.getStatus();
                } else if (common.getCode() != e.getStatus().getCode()) {
                    mixed = true;
                }
            }
            return b.setStatus(mixed ? Statuses.of(Code.MULTIPLE_RESULTS, "entries have different results")
                    : common).build();
        });
    }

    CompletableFuture<ChangeInvisibleDurationResponse> changeInvisibleDuration(
            final ChangeInvisibleDurationRequest request) {
        final String group = ResourceNames.core(request.getGroup());
        final long millis = MessageMapping.millis(request.getInvisibleDuration());
        Status refusal = null;
        if (group.isEmpty()) {
            refusal = Statuses.of(Code.ILLEGAL_CONSUMER_GROUP, "consumer group is missing");
        } else if (request.getReceiptHandle().isEmpty()) {
            refusal = Statuses.of(Code.INVALID_RECEIPT_HANDLE, "receipt handle is missing");
        } else if (millis < 0 || millis > settings.maxInvisibleMillis()) {
            refusal = Statuses.of(Code.ILLEGAL_INVISIBLE_TIME, "invisible duration " + millis + " ms not in [0, "
                    + settings.maxInvisibleMillis() + "]");
        }
        if (refusal != null) {
            return CompletableFuture.completedFuture(
                    ChangeInvisibleDurationResponse.newBuilder().setStatus(refusal).build());
        }
        return held.changeInvisibleTime(group, request.getReceiptHandle(), millis)
                .handle((handle, failure) -> failure == null
                        ? ChangeInvisibleDurationResponse.newBuilder().setStatus(Statuses.OK)
                                .setReceiptHandle(handle).build()
                        : ChangeInvisibleDurationResponse.newBuilder()
                                .setStatus(Statuses.fromFailure(failure, Code.INVALID_RECEIPT_HANDLE)).build());
    }

    CompletableFuture<ForwardMessageToDeadLetterQueueResponse> deadLetter(
            final ForwardMessageToDeadLetterQueueRequest request) {
        final String group = ResourceNames.core(request.getGroup());
        if (request.getGroup().getName().isEmpty()) {
            return CompletableFuture.completedFuture(ForwardMessageToDeadLetterQueueResponse.newBuilder()
                    .setStatus(Statuses.of(Code.ILLEGAL_CONSUMER_GROUP, "consumer group is missing")).build());
        }
        return held.deadLetter(group, request.getReceiptHandle())
                .handle((v, failure) -> ForwardMessageToDeadLetterQueueResponse.newBuilder()
                        .setStatus(failure == null ? Statuses.OK
                                : Statuses.fromFailure(failure, Code.INVALID_RECEIPT_HANDLE)).build());
    }
}
