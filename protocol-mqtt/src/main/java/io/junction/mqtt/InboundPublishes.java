package io.junction.mqtt;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.meta.TopicConfig;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PUBLISHes one connection's client sends us: topic aliases, authorization and quota, QoS 2 duplicates, storing
 * (in order while a new core topic is being created), and the PUBACK / PUBREC / PUBCOMP replies, which go out in the
 * order the PUBLISHes came in, each only once the store has its message. Runs on the session's executor, as the
 * connection does.
 */
final class InboundPublishes {
    private static final Logger LOG = LoggerFactory.getLogger(InboundPublishes.class);

    private final MqttConnection connection;
    private final MqttBroker broker;
    private final MqttSettings settings;
    private final Map<Integer, String> inboundAliases = new HashMap<>();
    /** QoS 1 and 2 PUBLISHes not acknowledged (or, for QoS 2, not released) yet: at most Receive Maximum. */
    private int inboundInflight;
    /** The last publish of a serialized run (see onPublish), or null. */
    private CompletableFuture<Void> serialized;
    /** Acknowledgements waiting for their store sends, in arrival order. */
    private final ArrayDeque<PendingAck> acks = new ArrayDeque<>();
    /** A flushAcks task is queued on the event loop (set from store threads, cleared by the task). */
    private final AtomicBoolean ackFlushScheduled = new AtomicBoolean();

    private record PendingAck(CompletableFuture<Void> stored, Consumer<Throwable> reply) {
    }

    InboundPublishes(final MqttConnection connection, final MqttBroker broker) {
        this.connection = connection;
        this.broker = broker;
        this.settings = broker.settings();
    }

    void onPublish(final String topicName, final byte[] payload, final int qos, final boolean retain,
                           final boolean dup, final int packetId, final MqttProperties props) {
        if (!connection.connected()) {
            return;
        }
        String topic = topicName;
        final Integer alias = connection.version() == 5
                ? MqttMessageMapping.intProperty(props, MqttProperties.TOPIC_ALIAS) : null;
        if (alias != null) {
            if (alias <= 0 || alias > settings.topicAliasMaximum()) {
                connection.disconnect(0x94, "topic alias invalid");
                return;
            }
            if (topic == null || topic.isEmpty()) {
                topic = inboundAliases.get(alias);
                if (topic == null) {
                    connection.disconnect(0x82, "unknown topic alias");
                    return;
                }
            } else {
                inboundAliases.put(alias, topic);
            }
        }
        if (!TopicFilter.isValidTopicName(topic)) {
            connection.disconnect(0x90, "topic name invalid"); // 3.3.2-2: no wildcards in a PUBLISH topic
            return;
        }
        final String coreTopic = connection.session().namespace.core(CoreTopics.coreTopicOf(topic));
        if (!connection.mayWrite(coreTopic)) {
            refusePublish(qos, packetId, 0x87, "not authorized", true);
            return;
        }
        if (!broker.accessControl().admitPublish(connection.principal(), 1, payload.length).admitted()) {
            refusePublish(qos, packetId, 0x97, "quota exceeded", false); // QoS 0 dropped, as at most once allows
            return;
        }
        if (qos > 0 && ++inboundInflight > settings.receiveMaximum() && connection.version() == 5) {
            connection.disconnect(0x93, "receive maximum exceeded");
            return;
        }
        if (qos == 2) {
            final CompletableFuture<Void> earlier = connection.session().awaitingRelease.get(packetId);
            if (earlier != null) {
                inboundInflight--; // a duplicate: acknowledge again, store nothing
                queueAck(earlier, e -> connection.write(pubReply(MqttMessageType.PUBREC, packetId, e)));
                return;
            }
        }
        final String mqttTopic = topic;
        // QoS 2 of a persistent session: the message's unique id is in the QoS 2 ledger before the message is stored.
        // A resend of a recorded packet id after a restart is stored only if the message did not make it.
        final Qos2Ledger.Inbound recorded = qos == 2 && dup ? connection.session().recordedInbound(packetId) : null;
        final String uniqueId = qos != 2 ? null
                : recorded != null ? recorded.uniqueId() : connection.session().recordInbound(packetId, coreTopic);
        final CompletableFuture<Void> stored;
        if (recorded != null) {
            stored = broker.messaging().queryById(recorded.coreTopic(), uniqueId)
                    .handle((m, e) -> m != null && m.isPresent())
                    .thenComposeAsync(found -> found ? CompletableFuture.<Void>completedFuture(null)
                            : broker.ensureTopic(coreTopic).thenCompose(queues -> store(mqttTopic, payload, qos,
                            retain, props, queues, uniqueId)), connection.session().executor());
        } else if (serialized != null && !serialized.isDone()
                || broker.messaging().route(coreTopic).isEmpty()) {
            // A core topic about to be created: this and later publishes of the connection wait for the previous
            // one, so the first messages of a new topic keep their order (they all land in the topic's queue).
            final CompletableFuture<Void> previous = serialized == null ? CompletableFuture.completedFuture(null)
                    : serialized;
            stored = previous.handle((x, e) -> null).thenComposeAsync(x -> broker.ensureTopic(coreTopic)
                    .thenCompose(queues -> store(mqttTopic, payload, qos, retain, props, queues, uniqueId)),
                    connection.session().executor());
            serialized = stored;
        } else {
            final int queues = broker.messaging().route(coreTopic).map(TopicConfig::queueCount).orElse(0);
            stored = store(topic, payload, qos, retain, props, queues, uniqueId);
        }
        switch (qos) {
            case 1 -> queueAck(stored, e -> {
                inboundInflight--;
                if (e != null && connection.version() != 5) {
                    LOG.warn("MQTT publish of {} to {} not stored, closing (3.1.1 has no negative PUBACK): {}",
                            connection.session().clientId, mqttTopic, e.toString());
                    connection.disconnect(0x80, "not stored");
                } else {
                    connection.write(pubReply(MqttMessageType.PUBACK, packetId, e));
                }
            });
            case 2 -> {
                connection.session().awaitingRelease.put(packetId, stored);
                queueAck(stored, e -> {
                    if (e != null) {
                        connection.session().awaitingRelease.remove(packetId);
                        connection.session().releaseInbound(packetId);
                        inboundInflight--;
                        if (connection.version() != 5) {
                            connection.disconnect(0x80, "not stored");
                            return;
                        }
                    }
                    connection.write(pubReply(MqttMessageType.PUBREC, packetId, e));
                });
            }
            default -> { }
        }
    }

    /**
     * A PUBLISH the policy refuses: MQTT 5 answers QoS 1 and 2 with {@code reason} in the PUBACK / PUBREC; 3.1.1 has
     * no negative acknowledgement, so the connection closes (at QoS 0 too when {@code closeAtQos0}).
     */
    private void refusePublish(final int qos, final int packetId, final int reason, final String why,
                               final boolean closeAtQos0) {
        if (connection.version() == 5) {
            if (qos > 0) {
                final MqttProperties props = new MqttProperties();
                connection.addReasonString(props, why);
                connection.writeAndFlush(new MqttMessage(new MqttFixedHeader(qos == 1 ? MqttMessageType.PUBACK
                        : MqttMessageType.PUBREC, false, MqttQoS.AT_MOST_ONCE, false, 0),
                        new MqttPubReplyMessageVariableHeader(packetId, (byte) reason, props)));
            }
        } else if (qos > 0 || closeAtQos0) {
            connection.disconnect(reason, why);
        }
    }

    /** Stores a PUBLISH; {@code uniqueId} is the message's unique id when chosen in advance, else null. */
    private CompletableFuture<Void> store(final String topic, final byte[] payload, final int qos,
                                          final boolean retain, final MqttProperties props, final int queues,
                                          final String uniqueId) {
        final Session session = connection.session();
        final MqttMessageMapping.Inbound in = MqttMessageMapping.toCore(topic, session.namespace, payload, qos,
                retain, props, session.clientId, queues, uniqueId, System.currentTimeMillis());
        return in.message() == null
                ? CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_ARGUMENT, in.error()))
                : broker.publish(in.message(), retain, session.namespace);
    }

    /** Queues the reply to a publish for when it is stored; replies go out in arrival order. */
    private void queueAck(final CompletableFuture<Void> stored, final Consumer<Throwable> reply) {
        acks.add(new PendingAck(stored, reply));
        stored.whenComplete((r, e) -> {
            // One pass of the event loop answers every publish stored by then, with one flush: the store completes
            // sends in batches, and a task plus a write system call per acknowledgement cost more than the store.
            if (ackFlushScheduled.compareAndSet(false, true)) {
                connection.session().executor().execute(this::flushAcks);
            }
        });
    }

    /** Writes the replies of the publishes stored so far (a reply only writes: one flush at the end). */
    private void flushAcks() {
        ackFlushScheduled.set(false);
        boolean replied = false;
        while (!acks.isEmpty() && acks.peek().stored().isDone()) {
            final PendingAck a = acks.poll();
            Throwable failure = null;
            try {
                a.stored().join();
            } catch (CompletionException e) {
                failure = e.getCause();
            }
            if (connection.connected()) {
                a.reply().accept(failure);
                replied = true;
            }
        }
        if (replied) {
            connection.flush();
        }
    }

    private MqttMessage pubReply(final MqttMessageType type, final int packetId, final Throwable failure) {
        final int reason = failure == null ? 0 : reasonFor(failure);
        final MqttProperties props = failure == null ? MqttProperties.NO_PROPERTIES : new MqttProperties();
        if (failure != null) {
            connection.addReasonString(props, String.valueOf(failure.getMessage()));
        }
        return new MqttMessage(new MqttFixedHeader(type, false,
                type == MqttMessageType.PUBREL ? MqttQoS.AT_LEAST_ONCE : MqttQoS.AT_MOST_ONCE, false, 0),
                new MqttPubReplyMessageVariableHeader(packetId, (byte) reason, props));
    }

    private static int reasonFor(final Throwable failure) {
        if (failure instanceof StoreException se) {
            return switch (se.error()) {
                case ILLEGAL_ARGUMENT, ILLEGAL_MESSAGE -> 0x90; // topic name invalid
                case PERMISSION_DENIED -> 0x87;
                case DISK_FULL, BUSY -> 0x97; // quota exceeded
                case MESSAGE_TOO_LARGE -> 0x95;
                default -> 0x80;
            };
        }
        return 0x80;
    }


    /** PUBREL: the QoS 2 message is released; PUBCOMP answers, 0x92 when the packet id is unknown (MQTT 5). */
    void onPubRel(final int id) {
        boolean known = connection.session().awaitingRelease.remove(id) != null;
        if (known) {
            inboundInflight--;
        }
        known |= connection.session().releaseInbound(id); // one recorded before a restart counts as known too
        final MqttProperties props = known ? MqttProperties.NO_PROPERTIES : new MqttProperties();
        if (!known) {
            connection.addReasonString(props, "packet identifier " + id + " not found");
        }
        connection.writeAndFlush(new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBCOMP, false,
                MqttQoS.AT_MOST_ONCE, false, 0), new MqttPubReplyMessageVariableHeader(id,
                (byte) (known || connection.version() != 5 ? 0 : 0x92), props)));
    }
}
