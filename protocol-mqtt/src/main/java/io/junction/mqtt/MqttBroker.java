package io.junction.mqtt;

import io.junction.core.Messaging;
import io.junction.core.message.Message;
import io.junction.core.meta.TopicConfig;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.kit.HeldMessages;
import io.junction.spi.kit.TopicProvisioner;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Principal;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every MQTT connection shares: the session table (client id → session), the retained messages, and the way a
 * publish reaches the core.
 */
final class MqttBroker {
    private static final Logger LOG = LoggerFactory.getLogger(MqttBroker.class);

    /** A session handed to a CONNECT, and whether it existed before. */
    record Taken(Session session, boolean present) {
    }

    private final Messaging messaging;
    /** Messages popped for shared subscriptions that go back to their group (one rule for every front-end). */
    private final HeldMessages<Object> held;
    private final AccessControl accessControl;
    private final MqttSettings settings;
    private final RetainedStore retained;
    private final ClientRegistry clients;
    private final ConcurrentMap<String, Session> sessions = new ConcurrentHashMap<>();
    private final SessionStore sessionStore;
    private final Qos2Ledger qos2Ledger;
    /** Client ids with a live record in the session log. */
    private final Set<String> durable = ConcurrentHashMap.newKeySet();
    private final EventLoopGroup loops;
    /** Core topics of first levels published to for the first time: created here, one rule for every protocol. */
    private final TopicProvisioner topics;
    private ScheduledFuture<?> compaction;

    MqttBroker(final Messaging messaging, final AccessControl accessControl, final MqttSettings settings,
               final EventLoopGroup loops) {
        this(messaging, accessControl, settings, loops, new ClientRegistry());
    }

    /** @param clients where accepted connections are listed for operators */
    MqttBroker(final Messaging messaging, final AccessControl accessControl, final MqttSettings settings,
               final EventLoopGroup loops, final ClientRegistry clients) {
        this.clients = clients;
        this.messaging = messaging;
        this.held = new HeldMessages<>(messaging);
        this.accessControl = accessControl;
        this.settings = settings;
        this.loops = loops;
        this.topics = new TopicProvisioner(messaging, TopicProvisioner.Policy.normal(settings.topicQueues()));
        this.retained = new RetainedStore(messaging);
        this.sessionStore = new SessionStore(messaging);
        this.qos2Ledger = new Qos2Ledger(messaging);
    }

    Messaging messaging() {
        return messaging;
    }

    ClientRegistry clients() {
        return clients;
    }

    /** Whether {@code namespace} is a tenant's (a user belongs to it). */
    boolean isTenant(final String namespace) {
        return accessControl.users().map(u -> u.isTenant(namespace)).orElse(false);
    }

    /** The namespace of an authenticated client's session. */
    MqttNamespace namespaceOf(final Principal principal) {
        return principal.inDefaultNamespace() && !accessControl.enabled() ? MqttNamespace.DEFAULT
                : new MqttNamespace(principal.namespace(), this::isTenant);
    }

    AccessControl accessControl() {
        return accessControl;
    }

    MqttSettings settings() {
        return settings;
    }

    RetainedStore retained() {
        return retained;
    }

    /**
     * Loads retained messages and restores persistent sessions (offline, expiry clocks restarted), then checks both
     * logs for compaction every {@code mqtt.compaction-check-ms}.
     */
    CompletableFuture<Void> start() {
        final CompletableFuture<Map<String, Qos2Ledger.Saved>> qos2 = new CompletableFuture<>();
        return retained.load().thenCompose(x -> qos2Ledger.load()).thenCompose(q -> {
            qos2.complete(q);
            return sessionStore.load();
        }).thenAccept(saved -> {
            compaction = loops.next().scheduleWithFixedDelay(() -> {
                retained.log().compactIfDue();
                sessionStore.log().compactIfDue();
                qos2Ledger.log().compactIfDue();
            }, settings.compactionCheckMs(), settings.compactionCheckMs(), TimeUnit.MILLISECONDS);
            final Map<String, Qos2Ledger.Saved> outbound = qos2.join();
            for (String orphan : outbound.keySet()) {
                if (!saved.containsKey(orphan)) {
                    qos2Ledger.delete(orphan); // its session ended just before the restart
                }
            }
            for (SessionStore.Saved s : saved.values()) {
                final Session session = new Session(s.clientId(), MqttNamespace.ofSessionKey(s.clientId(),
                        accessControl.enabled(), this::isTenant), loops.next(), messaging, held, settings, retained,
                        qos2Ledger, clients.popConsumers());
                session.setExpiry(true, s.expirySeconds());
                durable.add(s.clientId());
                sessions.put(s.clientId(), session);
                session.run(() -> {
                    session.restoreQos2(outbound.getOrDefault(s.clientId(), Qos2Ledger.Saved.EMPTY));
                    s.subscriptions().forEach(session::restore);
                    session.dropUnreachableQos2();
                    session.startExpiryClock(() -> sessionEnded(session));
                });
            }
            if (!saved.isEmpty()) {
                LOG.info("MQTT: restored {} persistent sessions", saved.size());
            }
        });
    }

    /**
     * Finds or creates the session of a client id. With clean start an existing session is ended (its connection is
     * told "session taken over" by the caller through the new session's take-over path, or here when it is dropped).
     */
    Taken takeSession(final String clientId, final MqttNamespace namespace, final boolean cleanStart,
                      final EventLoop loop) {
        final Session[] dropped = new Session[1];
        final boolean[] present = new boolean[1];
        final Session s = sessions.compute(clientId, (id, existing) -> {
            if (existing != null && !cleanStart && !existing.closed()) {
                present[0] = true;
                return existing;
            }
            dropped[0] = existing;
            return new Session(id, namespace, loop, messaging, held, settings, retained, qos2Ledger,
                    clients.popConsumers());
        });
        if (!present[0]) {
            qos2Ledger.delete(clientId); // a new session: no delivery state of an old one may resurface at a restart
        }
        if (dropped[0] != null) {
            final Session old = dropped[0];
            old.run(() -> {
                final MqttConnection conn = old.connection();
                old.close();
                if (conn != null) {
                    conn.disconnect(0x8E, "session taken over");
                }
            });
        }
        return new Taken(s, present[0]);
    }

    /** A session ended (expired, or a clean session's connection closed). */
    void sessionEnded(final Session s) {
        if (sessions.remove(s.clientId, s) && durable.remove(s.clientId)) {
            sessionStore.delete(s.clientId);
            qos2Ledger.delete(s.clientId);
        }
    }

    /** A session connected or changed its subscriptions or expiry: a persistent one is recorded durably. */
    void sessionChanged(final Session s) {
        if (s.persistent()) {
            durable.add(s.clientId);
            sessionStore.save(s.clientId, s.sessionExpirySeconds(), s.subscriptions().values());
        } else if (durable.remove(s.clientId)) {
            sessionStore.delete(s.clientId);
            qos2Ledger.delete(s.clientId);
        }
    }

    /**
     * The queue count of a core topic, creating it (with {@code mqtt.topic-queues} queues) when it does not exist, so
     * that a publish can pick its queue from the full MQTT topic even for the topic's first message. Fails for a name
     * the kit's rule does not create (too long, a system topic).
     */
    CompletableFuture<Integer> ensureTopic(final String coreTopic) {
        return topics.provision(coreTopic).thenApply(TopicConfig::queueCount);
    }

    /** Stores a publish in its core topic and, when retained, in the retained store. */
    CompletableFuture<Void> publish(final Message message, final boolean retain, final MqttNamespace namespace) {
        final CompletableFuture<Void> sent;
        if (message.body().length == 0 && retain) {
            sent = CompletableFuture.completedFuture(null); // only clears the retained message (3.3.1-6, -7)
        } else {
            sent = messaging.send(message).thenApply(r -> null);
        }
        if (!retain) {
            return sent;
        }
        return sent.thenCompose(x -> retained.retain(message, namespace));
    }

    void publishWill(final Session session, final Will will) {
        final String clientId = session.clientId;
        final int queues = messaging.route(session.namespace.core(CoreTopics.coreTopicOf(will.topic())))
                .map(TopicConfig::queueCount).orElse(0);
        final MqttMessageMapping.Inbound in = MqttMessageMapping.toCore(will.topic(), session.namespace,
                will.payload(), will.qos(), will.retain(), will.properties(), clientId, queues, null,
                System.currentTimeMillis());
        if (in.message() != null) {
            publish(in.message(), will.retain(), session.namespace).whenComplete((r, e) -> {
                if (e != null) {
                    LOG.warn("will message of {} on {} not stored: {}", clientId, will.topic(), e.toString());
                }
            });
        }
    }

    /** Completes once every message being given back to its shared-subscription group is stored. */
    CompletableFuture<Void> givenBack() {
        return held.pending();
    }

    /**
     * Ends every session, telling MQTT 5 clients why (DISCONNECT 0x8B); completes once each session's executor has
     * written that, so the front-end closes the channels after it.
     */
    CompletableFuture<Void> closeAll() {
        if (compaction != null) {
            compaction.cancel(false);
        }
        final List<CompletableFuture<Void>> closed = new ArrayList<>();
        for (Session s : sessions.values()) {
            final CompletableFuture<Void> done = new CompletableFuture<>();
            closed.add(done);
            s.run(() -> {
                try {
                    final MqttConnection conn = s.connection();
                    if (conn != null) {
                        conn.disconnect(0x8B, "server shutting down");
                    }
                    s.close();
                } finally {
                    done.complete(null);
                }
            });
        }
        sessions.clear();
        return CompletableFuture.allOf(closed.toArray(CompletableFuture[]::new));
    }
}
