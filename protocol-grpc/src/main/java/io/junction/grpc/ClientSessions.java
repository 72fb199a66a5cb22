package io.junction.grpc;

import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.SubscriptionEntry;
import apache.rocketmq.v2.TelemetryCommand;
import io.grpc.stub.StreamObserver;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.clients.PopConsumers;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The clients this node knows, by {@code x-mq-client-id}: the Settings each sent on its Telemetry stream and that
 * stream, over which the server pushes commands (transaction check-backs). A client with an open Telemetry stream is a
 * connection in the broker's {@link ClientRegistry}; an administrator's disconnect ends the stream and closes the
 * client's HTTP/2 connection, so its calls in flight fail and it connects again as a new connection.
 */
final class ClientSessions {

    /** One client. Its Telemetry stream is written under the session's lock (gRPC observers are not thread-safe). */
    static final class Session {
        final String clientId;
        private volatile Settings settings = Settings.getDefaultInstance();
        private StreamObserver<TelemetryCommand> telemetry;
        /** The Telemetry stream's caller and rules (null with security off). */
        private volatile CallAccess access;

        Session(final String clientId) {
            this.clientId = clientId;
        }

        Settings settings() {
            return settings;
        }

        void settings(final Settings s) {
            settings = s;
        }

        ClientType type() {
            return settings.getClientType();
        }

        /** The consumer group of a consumer, else null. */
        String group() {
            return settings.hasSubscription() && settings.getSubscription().hasGroup()
                    ? ResourceNames.core(settings.getSubscription().getGroup()) : null;
        }

        /** The topic this producer declared under {@code coreName}, as it named it; null when it declared none. */
        Resource publishedTopic(final String coreName) {
            if (settings.hasPublishing()) {
                for (Resource r : settings.getPublishing().getTopicsList()) {
                    if (ResourceNames.core(r).equals(coreName)) {
                        return r;
                    }
                }
            }
            return null;
        }

        List<SubscriptionEntry> subscriptions() {
            return settings.hasSubscription() ? settings.getSubscription().getSubscriptionsList() : List.of();
        }

        /** {@code stream} is the session's Telemetry stream now, of the caller {@code access} (null: security off). */
        synchronized void attach(final StreamObserver<TelemetryCommand> stream, final CallAccess access) {
            telemetry = stream;
            this.access = access;
        }

        /**
         * Whether this client may have the half messages of {@code coreTopic} checked back with it under the rules in
         * force now: its user may still publish to the topic (declared topics were filtered when declared; this
         * follows later changes).
         */
        boolean mayPublish(final String coreTopic) {
            final CallAccess a = access;
            return a == null || a.mayPublish(coreTopic);
        }

        synchronized void detach(final StreamObserver<TelemetryCommand> stream) {
            if (telemetry == stream) {
                telemetry = null;
            }
        }

        /** Completes {@code stream} if it is this session's current one; false when it is not. */
        synchronized boolean closeIf(final StreamObserver<TelemetryCommand> stream) {
            if (telemetry != stream) {
                return false;
            }
            close();
            return true;
        }

        synchronized boolean connected() {
            return telemetry != null;
        }

        /** Ends the Telemetry stream from the server side (the client terminated), so its channel can close. */
        synchronized void close() {
            if (telemetry != null) {
                try {
                    telemetry.onCompleted();
                } catch (RuntimeException ignored) {
                    // already closed
                }
                telemetry = null;
            }
        }

        /** Writes a command on the Telemetry stream; false when there is none or it failed. */
        synchronized boolean write(final TelemetryCommand command) {
            if (telemetry == null) {
                return false;
            }
            try {
                telemetry.onNext(command);
                return true;
            } catch (RuntimeException e) {
                telemetry = null;
                return false;
            }
        }
    }

    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final ClientRegistry clients;
    /** Closes a client's connection by its address; nothing when the listener's connections are not followed. */
    private final Consumer<SocketAddress> closeConnection;

    /** Sessions nobody lists (tests). */
    ClientSessions() {
        this(new ClientRegistry(), remote -> { });
    }

    ClientSessions(final ClientRegistry clients, final Consumer<SocketAddress> closeConnection) {
        this.clients = clients;
        this.closeConnection = closeConnection;
    }

    /**
     * Lists {@code session}, whose Telemetry stream {@code stream} just opened from {@code remote}; close the
     * registration when the stream's call ends.
     */
    /** Where receives note their consumer: POP consumers send no heartbeat, so the console lists them from this. */
    PopConsumers popConsumers() {
        return clients.popConsumers();
    }

    ClientRegistry.Registration list(final Session session, final StreamObserver<TelemetryCommand> stream,
                                     final String user, final SocketAddress remote) {
        final Settings first = session.settings();
        final String version = first.hasUserAgent()
                ? first.getUserAgent().getLanguage() + " " + first.getUserAgent().getVersion() : "";
        return clients.add("grpc", version, session.clientId, user, remote, () -> describe(session.settings()),
                () -> {
                    session.closeIf(stream);
                    closeConnection.accept(remote);
                });
    }

    /** What a client declared: its kind, the topics it publishes to, its group and subscriptions. */
    static List<String> describe(final Settings settings) {
        final List<String> details = new ArrayList<>();
        details.add(settings.getClientType().name().toLowerCase(Locale.ROOT).replace('_', ' '));
        if (settings.hasPublishing()) {
            settings.getPublishing().getTopicsList().forEach(t -> details.add("publishes to " + ResourceNames.core(t)));
        }
        if (settings.hasSubscription()) {
            if (settings.getSubscription().hasGroup()) {
                details.add("consumer group " + ResourceNames.core(settings.getSubscription().getGroup()));
            }
            for (SubscriptionEntry e : settings.getSubscription().getSubscriptionsList()) {
                details.add("subscribes to " + ResourceNames.core(e.getTopic()) + " (" + e.getExpression()
                        .getExpression() + ")");
            }
        }
        return details;
    }

    Session get(final String clientId) {
        return sessions.get(clientId);
    }

    Session getOrCreate(final String clientId) {
        return sessions.computeIfAbsent(clientId, Session::new);
    }

    Session remove(final String clientId) {
        return sessions.remove(clientId);
    }

    /** Producers with a live Telemetry stream that declared {@code topic} (a core name) and may still publish to it. */
    List<Session> producersOf(final String topic) {
        final List<Session> found = new ArrayList<>();
        for (Session s : sessions.values()) {
            if (s.type() == ClientType.PRODUCER && s.connected() && s.publishedTopic(topic) != null
                    && s.mayPublish(topic)) {
                found.add(s);
            }
        }
        return found;
    }
}
