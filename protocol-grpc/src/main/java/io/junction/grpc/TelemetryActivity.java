package io.junction.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.CustomizedBackoff;
import apache.rocketmq.v2.ExponentialBackoff;
import apache.rocketmq.v2.Metric;
import apache.rocketmq.v2.Publishing;
import apache.rocketmq.v2.RetryPolicy;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Subscription;
import apache.rocketmq.v2.TelemetryCommand;
import io.grpc.Context;
import io.grpc.stub.StreamObserver;
import io.junction.core.Messaging;
import io.junction.core.meta.GroupConfig;
import io.junction.spi.clients.ClientRegistry;
import io.junction.tenancy.PolicyWatch;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Telemetry session of a client: the stream its settings come in on and the server's settings go out on (the
 * producer back-off and publishing limits, the consumer group's retry policy, FIFO and receive settings), attached to
 * the client's session so the broker can reach it; with security on, the stream ends when its user is revoked.
 */
final class TelemetryActivity {
    private static final Logger LOG = LoggerFactory.getLogger(TelemetryActivity.class);
    /** Producer back-off: RocketMQ's proxy defaults. */
    static final RetryPolicy PRODUCER_BACKOFF = RetryPolicy.newBuilder().setMaxAttempts(3)
            .setExponentialBackoff(ExponentialBackoff.newBuilder().setInitial(MessageMapping.duration(10))
                    .setMax(MessageMapping.duration(1000)).setMultiplier(2)).build();
    /** Consumer redelivery delays: RocketMQ's customized policy (1s 5s 10s 30s 1m ... 2h). */
    static final long[] CONSUMER_BACKOFF_SECONDS = {1, 5, 10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600,
            1200, 1800, 3600, 7200};

    private final Messaging messaging;
    private final GrpcSettings settings;
    private final ClientSessions sessions;

    TelemetryActivity(final Messaging messaging, final GrpcSettings settings, final ClientSessions sessions) {
        this.messaging = messaging;
        this.settings = settings;
        this.sessions = sessions;
    }

    /** A client's Telemetry stream: its settings in, the server's settings out; ends when its user is revoked. */
    StreamObserver<TelemetryCommand> open(final StreamObserver<TelemetryCommand> out) {
        final String clientId = ClientMetadata.clientId();
        final CallAccess access = CallAccess.current();
        final InetSocketAddress remote = ClientMetadata.remote();
        return new StreamObserver<>() {
            private ClientSessions.Session session;
            /** The client in the broker's list, from its first Settings on. */
            private ClientRegistry.Registration listed;

            @Override
            public void onNext(final TelemetryCommand command) {
                if (clientId.isEmpty()) {
                    synchronized (out) {
                        out.onNext(TelemetryCommand.newBuilder()
                                .setStatus(Statuses.of(Code.CLIENT_ID_REQUIRED, "x-mq-client-id is missing")).build());
                    }
                    return;
                }
                if (command.getCommandCase() != TelemetryCommand.CommandCase.SETTINGS) {
                    return; // thread stack traces and verification results: nothing asks for them yet
                }
                if (session == null) {
                    session = sessions.getOrCreate(clientId);
                    session.attach(out, access);
                    if (access != null) { // security on: the stream ends when its user is deleted or disabled
                        final ClientSessions.Session s = session;
                        final PolicyWatch watch = access.watch(() -> {
                            s.write(TelemetryCommand.newBuilder().setStatus(Statuses.of(Code.UNAUTHORIZED,
                                    "the user was deleted, disabled or moved to another namespace")).build());
                            s.closeIf(out);
                        });
                        // the call's context is cancelled when the stream ends, however it ends
                        Context.current().addListener(ended -> watch.cancel(), Runnable::run);
                    }
                }
                session.settings(command.getSettings());
                if (listed == null) {
                    // the call's context is cancelled when the stream ends, however it ends (or its connection does)
                    listed = sessions.list(session, out, access == null ? "" : access.user(), remote);
                    Context.current().addListener(ended -> listed.close(), Runnable::run);
                }
                final Settings reply;
                try {
                    reply = serverSettings(command.getSettings());
                } catch (Statuses.Refusal r) {
                    session.write(TelemetryCommand.newBuilder().setStatus(r.status()).build());
                    return;
                }
                session.write(TelemetryCommand.newBuilder().setStatus(Statuses.OK).setSettings(reply).build());
            }

            @Override
            public void onError(final Throwable t) {
                if (session != null) {
                    session.detach(out);
                }
            }

            @Override
            public void onCompleted() {
                if (session != null && session.closeIf(out)) {
                    return;
                }
                synchronized (out) {
                    try {
                        out.onCompleted();
                    } catch (RuntimeException ignored) {
                        // already closed
                    }
                }
            }
        };
    }

    /** What the server tells a client, given what it declared (rocketmq-wire.md §4.6). */
    Settings serverSettings(final Settings client) {
        final Settings.Builder b = client.toBuilder().setMetric(Metric.newBuilder().setOn(false));
        switch (client.getClientType()) {
            case PRODUCER -> b.setBackoffPolicy(PRODUCER_BACKOFF).setPublishing(Publishing.newBuilder()
                    .addAllTopics(client.getPublishing().getTopicsList())
                    .setMaxBodySize(settings.maxBodySize())
                    .setValidateMessageType(settings.validateMessageType()));
            case PUSH_CONSUMER, SIMPLE_CONSUMER -> {
                final Subscription sub = client.getSubscription();
                if (sub.getGroup().getName().isEmpty()) {
                    throw Statuses.refuse(Code.ILLEGAL_CONSUMER_GROUP, "consumer group is missing");
                }
                final GroupConfig config = group(ResourceNames.core(sub.getGroup()), sub.getFifo());
                final CustomizedBackoff.Builder backoff = CustomizedBackoff.newBuilder();
                for (long s : CONSUMER_BACKOFF_SECONDS) {
                    backoff.addNext(MessageMapping.duration(s * 1000));
                }
                b.setBackoffPolicy(RetryPolicy.newBuilder().setMaxAttempts(config.maxReconsumeTimes() + 1)
                        .setCustomizedBackoff(backoff));
                b.setSubscription(sub.toBuilder()
                        .setFifo(config.fifo())
                        .setReceiveBatchSize(settings.receiveBatchSize())
                        .setLongPollingTimeout(MessageMapping.duration(settings.longPollingMillis())));
            }
            default -> {
                // other client types get their own settings back
            }
        }
        return b.build();
    }

    /**
     * The group's config: created when unknown, turned FIFO when the client asks for it (the core then keeps per-group
     * order).
     */
    private GroupConfig group(final String name, final boolean fifo) {
        final Optional<GroupConfig> existing = messaging.groups().get(name);
        if (existing.isPresent() && (existing.get().fifo() || !fifo)) {
            return existing.get();
        }
        final GroupConfig base = existing.orElse(GroupConfig.of(name));
        final GroupConfig wanted = new GroupConfig(name, base.maxReconsumeTimes(), base.fifo() || fifo,
                base.broadcast(), base.attributes());
        if (existing.isEmpty() && !fifo) {
            return wanted; // created on first use by the core
        }
        try {
            messaging.groups().createOrUpdate(wanted);
        } catch (RuntimeException e) {
            LOG.warn("cannot make group {} FIFO: {}", name, e.toString());
        }
        return wanted;
    }
}
