package io.junction.grpc;

import apache.rocketmq.v2.AckMessageRequest;
import apache.rocketmq.v2.AckMessageResponse;
import apache.rocketmq.v2.Address;
import apache.rocketmq.v2.AddressScheme;
import apache.rocketmq.v2.Assignment;
import apache.rocketmq.v2.Broker;
import apache.rocketmq.v2.ChangeInvisibleDurationRequest;
import apache.rocketmq.v2.ChangeInvisibleDurationResponse;
import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.EndTransactionRequest;
import apache.rocketmq.v2.EndTransactionResponse;
import apache.rocketmq.v2.Endpoints;
import apache.rocketmq.v2.FilterType;
import apache.rocketmq.v2.ForwardMessageToDeadLetterQueueRequest;
import apache.rocketmq.v2.ForwardMessageToDeadLetterQueueResponse;
import apache.rocketmq.v2.GetOffsetRequest;
import apache.rocketmq.v2.GetOffsetResponse;
import apache.rocketmq.v2.HeartbeatRequest;
import apache.rocketmq.v2.HeartbeatResponse;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.MessagingServiceGrpc;
import apache.rocketmq.v2.NotifyClientTerminationRequest;
import apache.rocketmq.v2.NotifyClientTerminationResponse;
import apache.rocketmq.v2.Permission;
import apache.rocketmq.v2.PullMessageRequest;
import apache.rocketmq.v2.PullMessageResponse;
import apache.rocketmq.v2.QueryAssignmentRequest;
import apache.rocketmq.v2.QueryAssignmentResponse;
import apache.rocketmq.v2.QueryOffsetRequest;
import apache.rocketmq.v2.QueryOffsetResponse;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.QueryRouteResponse;
import apache.rocketmq.v2.RecallMessageRequest;
import apache.rocketmq.v2.RecallMessageResponse;
import apache.rocketmq.v2.ReceiveMessageRequest;
import apache.rocketmq.v2.ReceiveMessageResponse;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.SendMessageResponse;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Status;
import apache.rocketmq.v2.Subscription;
import apache.rocketmq.v2.SubscriptionEntry;
import apache.rocketmq.v2.TelemetryCommand;
import apache.rocketmq.v2.UpdateOffsetRequest;
import apache.rocketmq.v2.UpdateOffsetResponse;
import io.grpc.Context;
import io.grpc.stub.StreamObserver;
import io.junction.core.Messaging;
import io.junction.core.group.ConsumerClient;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.junction.core.txn.TransactionEnd;
import io.junction.core.txn.TransactionResolution;
import io.junction.spi.kit.TopicProvisioner;
import io.junction.spi.kit.HeldMessages;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code apache.rocketmq.v2.MessagingService}: routes, heartbeats, assignments and transactions here; the Telemetry
 * session and client settings go to {@link TelemetryActivity}, sends to {@link SendActivity}, POP consumption to {@link ReceiveActivity}, offset consumption
 * (PullMessage, UpdateOffset, GetOffset, QueryOffset) to {@link OffsetActivity}. Every application error is a proto
 * {@link Status} inside a normal (gRPC OK) response.
 */
final class GrpcMessagingService extends MessagingServiceGrpc.MessagingServiceImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(GrpcMessagingService.class);
    /** Broker name in routes: every queue lives on this node. */
    static final String BROKER_NAME = "junction";

    private final Messaging messaging;
    private final GrpcSettings settings;
    private final ClientSessions sessions;
    private final SendActivity sender;
    private final ReceiveActivity receiver;
    private final OffsetActivity offsets;
    private final TelemetryActivity telemetry;
    private final TopicProvisioner topics;
    private final HeldMessages<String> held;
    private final RouteEndpoints routeEndpoints;
    /** Where answers are built and written: never on the store's threads (its single appender above all). */
    private final Executor responses;
    /**
     * Security on: an EndTransaction must name the half message's own topic (gRPC's producer group), the topic its
     * caller was authorized to publish to, so a message id from another tenant ends nothing.
     */
    private final boolean endsNameTheirTopic;

    GrpcMessagingService(final Messaging messaging, final GrpcSettings settings, final ClientSessions sessions,
                         final String advertisedHost, final int port) {
        this(messaging, settings, sessions, advertisedHost, port, Runnable::run, false);
    }

    /**
     * @param responses runs the completion of every call: building the response and serializing it (gRPC does that
     *                  on the writing thread) would otherwise run on whichever store thread completed the work
     * @param endsNameTheirTopic whether EndTransaction must name the half message's topic (security on)
     */
    GrpcMessagingService(final Messaging messaging, final GrpcSettings settings, final ClientSessions sessions,
                         final String advertisedHost, final int port, final Executor responses,
                         final boolean endsNameTheirTopic) {
        this.responses = responses;
        this.endsNameTheirTopic = endsNameTheirTopic;
        this.messaging = messaging;
        this.settings = settings;
        this.sessions = sessions;
        this.sender = new SendActivity(messaging, settings);
        this.topics = new TopicProvisioner(messaging, new TopicProvisioner.Policy(settings.autoCreateTopics(),
                settings.autoCreateQueues(), TopicType.MIXED));
        this.held = new HeldMessages<>(messaging, id -> {
            final ClientSessions.Session s = sessions.get(id);
            return s != null && s.connected();
        }, System::currentTimeMillis);
        this.receiver = new ReceiveActivity(messaging, settings, held, responses, sessions.popConsumers());
        this.offsets = new OffsetActivity(messaging, settings, responses);
        this.telemetry = new TelemetryActivity(messaging, settings, sessions);
        this.routeEndpoints = new RouteEndpoints(messaging.kvConfigs(), Endpoints.newBuilder()
                .setScheme(advertisedHost.indexOf(':') >= 0 ? AddressScheme.IPv6
                        : Character.isDigit(advertisedHost.isEmpty() ? 'x' : advertisedHost.charAt(0))
                        ? AddressScheme.IPv4 : AddressScheme.DOMAIN_NAME)
                .addAddresses(Address.newBuilder().setHost(advertisedHost).setPort(port)).build());
    }

    /** The messages push consumers hold (renewed while they do); the front-end starts and stops the renewals. */
    HeldMessages<String> held() {
        return held;
    }

    // ------------------------------------------------------------------------------------------------ routes

    @Override
    public void queryRoute(final QueryRouteRequest request, final StreamObserver<QueryRouteResponse> out) {
        if (request.getTopic().getName().isEmpty()) {
            unary(out, QueryRouteResponse.newBuilder().setStatus(Statuses.of(Code.ILLEGAL_TOPIC, "topic is missing"))
                    .build());
            return;
        }
        final Endpoints endpoints = routeEndpoints.of(request.hasEndpoints(), request.getEndpoints());
        reply(out, topic(ResourceNames.core(request.getTopic())), route -> {
            final QueryRouteResponse.Builder b = QueryRouteResponse.newBuilder().setStatus(Statuses.OK);
            final Permission perm = permission(route);
            final List<apache.rocketmq.v2.MessageType> accepted = settings.validateMessageType()
                    ? SendActivity.accepted(route.type()) : SendActivity.accepted(TopicType.MIXED);
            for (int i = 0; i < route.queueCount(); i++) {
                // Queues past the write count are closed (a proxy scaled the topic in): readable, not writable.
                final Permission queuePerm = i < route.writeQueueCount() || perm != Permission.READ_WRITE ? perm
                        : Permission.READ;
                b.addMessageQueues(MessageQueue.newBuilder().setTopic(request.getTopic()).setId(i)
                        .setPermission(queuePerm).setBroker(broker(endpoints)).addAllAcceptMessageTypes(accepted));
            }
            return b.build();
        }, failure -> QueryRouteResponse.newBuilder().setStatus(failure).build());
    }

    /**
     * The topic's config; created (MIXED, {@code grpc.auto-create-queues} queues) when unknown and
     * {@code grpc.auto-create-topics} is on, else TOPIC_NOT_FOUND: the kit's rule, shared with every front-end.
     */
    private CompletableFuture<TopicConfig> topic(final String topic) {
        return topics.provision(topic);
    }

    private static Broker broker(final Endpoints endpoints) {
        return Broker.newBuilder().setName(BROKER_NAME).setId(0).setEndpoints(endpoints).build();
    }

    private static Permission permission(final TopicConfig c) {
        if (c.readable() && c.writable()) {
            return Permission.READ_WRITE;
        }
        return c.readable() ? Permission.READ : c.writable() ? Permission.WRITE : Permission.NONE;
    }

    @Override
    public void queryAssignment(final QueryAssignmentRequest request,
                                final StreamObserver<QueryAssignmentResponse> out) {
        final Endpoints endpoints = routeEndpoints.of(request.hasEndpoints(), request.getEndpoints());
        reply(out, topic(ResourceNames.core(request.getTopic())), route -> {
            if (!route.readable()) {
                return QueryAssignmentResponse.newBuilder().setStatus(Statuses.of(Code.FORBIDDEN,
                        "no readable queue in topic " + request.getTopic().getName())).build();
            }
            // The core balances POP across every queue of the topic: one assignment covers the whole node.
            return QueryAssignmentResponse.newBuilder().setStatus(Statuses.OK)
                    .addAssignments(Assignment.newBuilder().setMessageQueue(MessageQueue.newBuilder()
                            .setTopic(request.getTopic()).setId(-1).setPermission(permission(route))
                            .setBroker(broker(endpoints))
                            .addAllAcceptMessageTypes(SendActivity.accepted(route.type()))))
                    .build();
        }, failure -> QueryAssignmentResponse.newBuilder().setStatus(failure).build());
    }

    // ------------------------------------------------------------------------------------------------ clients

    @Override
    public void heartbeat(final HeartbeatRequest request, final StreamObserver<HeartbeatResponse> out) {
        final String clientId = ClientMetadata.clientId();
        if (clientId.isEmpty()) {
            unary(out, HeartbeatResponse.newBuilder()
                    .setStatus(Statuses.of(Code.CLIENT_ID_REQUIRED, "x-mq-client-id is missing")).build());
            return;
        }
        final ClientSessions.Session session = sessions.getOrCreate(clientId);
        final ClientType type = request.getClientType() != ClientType.CLIENT_TYPE_UNSPECIFIED
                ? request.getClientType() : session.type();
        if (type == ClientType.PUSH_CONSUMER || type == ClientType.SIMPLE_CONSUMER) {
            final String group = request.hasGroup() ? ResourceNames.core(request.getGroup()) : session.group();
            if (group == null || group.isEmpty()) {
                unary(out, HeartbeatResponse.newBuilder()
                        .setStatus(Statuses.of(Code.ILLEGAL_CONSUMER_GROUP, "consumer group is missing")).build());
                return;
            }
            final Status refused = registerConsumer(group, session);
            if (refused != null) {
                unary(out, HeartbeatResponse.newBuilder().setStatus(refused).build());
                return;
            }
        }
        unary(out, HeartbeatResponse.newBuilder().setStatus(Statuses.OK).build());
    }

    /**
     * Registers the session's subscriptions for its group; the refusal when that cannot be done: the group is unknown
     * and groups are not created on first use (CONSUMER_GROUP_NOT_FOUND), or a subscription's filter expression does
     * not compile (ILLEGAL_FILTER_EXPRESSION).
     */
    private Status registerConsumer(final String group, final ClientSessions.Session session) {
        if (messaging.groups().getOrCreate(group).isEmpty()) {
            return Statuses.of(Code.CONSUMER_GROUP_NOT_FOUND, "consumer group " + group + " does not exist");
        }
        final Map<String, ConsumerClient.Subscription> subs = new LinkedHashMap<>();
        for (SubscriptionEntry e : session.subscriptions()) {
            try {
                ReceiveActivity.filter(e.getExpression());
            } catch (Statuses.Refusal r) {
                return Statuses.of(Code.ILLEGAL_FILTER_EXPRESSION, "subscription to " + e.getTopic().getName() + ": "
                        + r.getMessage());
            }
            subs.put(ResourceNames.core(e.getTopic()), new ConsumerClient.Subscription(
                    e.getExpression().getType() == FilterType.SQL ? "SQL92" : "TAG",
                    e.getExpression().getExpression().isEmpty() ? "*" : e.getExpression().getExpression()));
        }
        try {
            messaging.consumers().heartbeat(group, session.clientId, subs, false);
            return null;
        } catch (RuntimeException e) {
            LOG.debug("heartbeat of {} in {} refused: {}", session.clientId, group, e.toString());
            return Statuses.fromFailure(e, Code.BAD_REQUEST);
        }
    }

    @Override
    public void notifyClientTermination(final NotifyClientTerminationRequest request,
                                        final StreamObserver<NotifyClientTerminationResponse> out) {
        final String clientId = ClientMetadata.clientId();
        final ClientSessions.Session session = sessions.remove(clientId);
        String group = request.hasGroup() ? ResourceNames.core(request.getGroup()) : null;
        if ((group == null || group.isEmpty()) && session != null) {
            group = session.group();
        }
        if (group != null && !group.isEmpty() && !clientId.isEmpty()) {
            try {
                messaging.consumers().unregister(group, clientId);
            } catch (RuntimeException e) {
                LOG.debug("unregister of {} from {} failed: {}", clientId, group, e.toString());
            }
        }
        if (!clientId.isEmpty()) {
            held.giveBackAll(clientId); // received, never consumed: the group takes them again at once
        }
        unary(out, NotifyClientTerminationResponse.newBuilder().setStatus(Statuses.OK).build());
        if (session != null) {
            session.close();
        }
    }

    @Override
    public StreamObserver<TelemetryCommand> telemetry(final StreamObserver<TelemetryCommand> out) {
        return telemetry.open(out);
    }

    /** What the server tells a client, given what it declared. */
    Settings serverSettings(final Settings client) {
        return telemetry.serverSettings(client);
    }

    // ------------------------------------------------------------------------------------------------ messages

    @Override
    public void sendMessage(final SendMessageRequest request, final StreamObserver<SendMessageResponse> out) {
        sender.send(request, ClientMetadata.remote()).whenCompleteAsync((r, failure) -> unary(out, failure == null ? r
                : SendMessageResponse.newBuilder().setStatus(Statuses.fromFailure(failure, Code.BAD_REQUEST))
                        .build()), responses);
    }

    @Override
    public void recallMessage(final RecallMessageRequest request, final StreamObserver<RecallMessageResponse> out) {
        sender.recall(request).whenCompleteAsync((r, failure) -> unary(out, failure == null ? r
                : RecallMessageResponse.newBuilder().setStatus(Statuses.fromFailure(failure, Code.BAD_REQUEST))
                        .build()), responses);
    }

    @Override
    public void receiveMessage(final ReceiveMessageRequest request,
                               final StreamObserver<ReceiveMessageResponse> out) {
        receiver.receive(request, ClientMetadata.clientId(), Context.current().getDeadline(), out);
    }

    @Override
    public void ackMessage(final AckMessageRequest request, final StreamObserver<AckMessageResponse> out) {
        receiver.ack(request).whenCompleteAsync((r, failure) -> unary(out, failure == null ? r
                : AckMessageResponse.newBuilder().setStatus(Statuses.fromFailure(failure, Code.BAD_REQUEST)).build()),
                responses);
    }

    @Override
    public void changeInvisibleDuration(final ChangeInvisibleDurationRequest request,
                                        final StreamObserver<ChangeInvisibleDurationResponse> out) {
        receiver.changeInvisibleDuration(request).whenCompleteAsync((r, failure) -> unary(out, failure == null ? r
                : ChangeInvisibleDurationResponse.newBuilder()
                        .setStatus(Statuses.fromFailure(failure, Code.BAD_REQUEST)).build()), responses);
    }

    @Override
    public void forwardMessageToDeadLetterQueue(final ForwardMessageToDeadLetterQueueRequest request,
                                                final StreamObserver<ForwardMessageToDeadLetterQueueResponse> out) {
        receiver.deadLetter(request).whenCompleteAsync((r, failure) -> unary(out, failure == null ? r
                : ForwardMessageToDeadLetterQueueResponse.newBuilder()
                        .setStatus(Statuses.fromFailure(failure, Code.BAD_REQUEST)).build()), responses);
    }

    @Override
    public void pullMessage(final PullMessageRequest request, final StreamObserver<PullMessageResponse> out) {
        offsets.pull(request, Context.current().getDeadline(), out);
    }

    @Override
    public void updateOffset(final UpdateOffsetRequest request, final StreamObserver<UpdateOffsetResponse> out) {
        unary(out, offsets.updateOffset(request));
    }

    @Override
    public void getOffset(final GetOffsetRequest request, final StreamObserver<GetOffsetResponse> out) {
        unary(out, offsets.getOffset(request));
    }

    @Override
    public void queryOffset(final QueryOffsetRequest request, final StreamObserver<QueryOffsetResponse> out) {
        offsets.queryOffset(request).whenCompleteAsync((r, failure) -> unary(out, failure == null ? r
                : QueryOffsetResponse.newBuilder().setStatus(Statuses.fromFailure(failure, Code.BAD_REQUEST))
                        .build()), responses);
    }

    @Override
    public void endTransaction(final EndTransactionRequest request, final StreamObserver<EndTransactionResponse> out) {
        final TransactionResolution resolution = switch (request.getResolution()) {
            case COMMIT -> TransactionResolution.COMMIT;
            case ROLLBACK -> TransactionResolution.ROLLBACK;
            default -> null;
        };
        if (resolution == null || request.getMessageId().isEmpty()) {
            unary(out, EndTransactionResponse.newBuilder().setStatus(Statuses.of(Code.BAD_REQUEST,
                    resolution == null ? "resolution must be COMMIT or ROLLBACK" : "message id is missing")).build());
            return;
        }
        final String txId = request.getTransactionId().isEmpty() ? null : request.getTransactionId();
        CompletableFuture<Void> ended;
        try {
            // the core checks a given producer group against the half message's PGROUP, which gRPC sets to the topic
            ended = messaging.endTransaction(endsNameTheirTopic
                    ? new TransactionEnd(ResourceNames.core(request.getTopic()), -1, request.getMessageId(), txId,
                            resolution, false)
                    : TransactionEnd.byId(request.getMessageId(), txId, resolution));
        } catch (RuntimeException e) {
            ended = CompletableFuture.failedFuture(e);
        }
        ended.whenCompleteAsync((v, failure) -> unary(out, EndTransactionResponse.newBuilder().setStatus(
                failure == null ? Statuses.OK : Statuses.fromFailure(failure, Code.INVALID_TRANSACTION_ID)).build()),
                responses);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static <T> void unary(final StreamObserver<T> out, final T response) {
        try {
            out.onNext(response);
            out.onCompleted();
        } catch (RuntimeException e) {
            LOG.debug("cannot answer (call cancelled?): {}", e.toString());
        }
    }

    private <C, T> void reply(final StreamObserver<T> out, final CompletableFuture<C> work,
                                     final Function<C, T> ok, final Function<Status, T> failed) {
        work.whenCompleteAsync((c, failure) -> unary(out, failure == null ? ok.apply(c)
                : failed.apply(Statuses.fromFailure(failure, Code.BAD_REQUEST))), responses);
    }
}
