package io.junction.mqtt;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.meta.TopicConfig;
import io.junction.tenancy.Action;
import io.junction.tenancy.Credentials;
import io.junction.tenancy.Grants;
import io.junction.tenancy.PolicyWatch;
import io.junction.tenancy.Principal;
import io.junction.tenancy.ResourceKind;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttIdentifierRejectedException;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubAckPayload;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttTopicSubscription;
import io.netty.handler.codec.mqtt.MqttUnacceptableProtocolVersionException;
import io.netty.handler.codec.mqtt.MqttUnsubAckMessage;
import io.netty.handler.codec.mqtt.MqttUnsubAckPayload;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MQTT network connection (one per channel; not sharable).
 *
 * <p>Before CONNECT it runs on its channel's event loop: a connect timeout closes a silent connection, decode failures
 * close it, anything but CONNECT closes it. CONNECT binds it to a {@link Session}; from then on every packet is handled
 * on the session's executor (usually the same loop), so connection and session state have one thread. Store calls are
 * asynchronous; their completions hop back to that executor. QoS 1 and 2 acknowledgements go out in the order the
 * PUBLISHes came in, each only after the store's send completed.
 */
final class MqttConnection extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(MqttConnection.class);
    /** Room kept for an acknowledgement's other fields when judging whether its reason string fits. */
    private static final int ACK_SIZE_WITHOUT_REASON = 64;
    private enum State { AWAIT_CONNECT, AUTHENTICATING, CONNECTED, CLOSED }

    private final MqttBroker broker;
    private final MqttSettings settings;
    private ChannelHandlerContext ctx;
    private State state = State.AWAIT_CONNECT;
    private ScheduledFuture<?> connectTimeout;
    private int version;
    private Session session;
    private Will will;
    private boolean normalDisconnect;
    private final Map<Integer, String> inboundAliases = new HashMap<>();
    /** Topic aliases we assigned towards the client (3.3.2.3.4), at most the client's Topic Alias Maximum. */
    private final Map<String, Integer> outboundAliases = new HashMap<>();
    private int clientTopicAliasMaximum;
    /**
     * MQTT 5 Request Problem Information (3.1.2.11.7): when the client sets it to 0, reason strings go only on
     * CONNACK and DISCONNECT, never on acknowledgements.
     */
    private boolean problemInformation = true;
    /** The client's Maximum Packet Size (3.1.2.11.4): a reason string that would overstep it is left out. */
    private long clientMaxPacketSize = Long.MAX_VALUE;
    private int inboundInflight;
    /** Packets that came while CONNECT was being authenticated, replayed after it (bounded). */
    private final List<MqttMessage> early = new ArrayList<>();
    private static final int MAX_EARLY = 32;
    private Principal principal = Principal.ANONYMOUS;
    /** Whether this connection counts against its namespace's connection quota (released when it closes). */
    private boolean countedConnection;
    /**
     * PUB and SUB of the connection's user, remembered until the rules change (set when the CONNECT is accepted).
     * PUB is asked for every PUBLISH, SUB for every message delivered: a subscription whose SUB was taken away stops
     * delivering at once, and starts again when it is given back.
     */
    private Grants topicWrites;
    private Grants topicReads;
    private Grants shareReads;
    /** Follows the user's rules while connected: a deleted or disabled user is disconnected (0x98). */
    private PolicyWatch policyWatch = PolicyWatch.NONE;
    /** The user may no longer act: its will is not published. */
    private volatile boolean revoked;
    /** The last publish of a serialized run (see onPublish), or null. */
    private CompletableFuture<Void> serialized;
    /** Acknowledgements waiting for their store sends, in arrival order. */
    private final ArrayDeque<PendingAck> acks = new ArrayDeque<>();
    /** A flushAcks task is queued on the event loop (set from store threads, cleared by the task). */
    private final AtomicBoolean ackFlushScheduled =
            new AtomicBoolean();

    private record PendingAck(CompletableFuture<Void> stored, Consumer<Throwable> reply) {
    }

    /** A will message kept until the connection ends. */
    record Will(String topic, byte[] payload, int qos, boolean retain, MqttProperties properties, long delaySeconds) {
    }

    MqttConnection(final MqttBroker broker) {
        this.broker = broker;
        this.settings = broker.settings();
    }

    Channel channel() {
        return ctx.channel();
    }

    boolean writable() {
        return ctx.channel().isWritable();
    }

    void write(final Object msg) {
        ctx.channel().write(msg);
    }

    void flush() {
        ctx.channel().flush();
    }

    void writeAndFlush(final Object msg) {
        ctx.channel().writeAndFlush(msg);
    }

    boolean isV5() {
        return version == 5;
    }

    /** Whether the connection's user may receive messages of the core topic now (on its own subscriptions). */
    boolean mayRead(final String coreTopic) {
        return topicReads.allows(coreTopic);
    }

    /** Whether the connection's user may receive messages of the core topic through the core share group now. */
    boolean mayReadShared(final String coreTopic, final String shareGroup) {
        return topicReads.allows(coreTopic) && shareReads.allows(shareGroup);
    }

    /**
     * The alias to send a topic under: positive and new (send the topic name with it), negative when the client
     * already knows it (send an empty topic name), 0 when there is none (no aliases, or all in use).
     */
    int outboundAlias(final String topic) {
        final Integer known = outboundAliases.get(topic);
        if (known != null) {
            return -known;
        }
        if (outboundAliases.size() >= clientTopicAliasMaximum) {
            return 0;
        }
        final int alias = outboundAliases.size() + 1;
        outboundAliases.put(topic, alias);
        return alias;
    }

    @Override
    public void handlerAdded(final ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive()) {
            startConnectTimeout(); // added to a live channel (WebSocket upgrade)
        }
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) {
        startConnectTimeout();
        ctx.fireChannelActive();
    }

    private void startConnectTimeout() {
        if (connectTimeout == null) {
            connectTimeout = ctx.executor().schedule(() -> {
                if (state == State.AWAIT_CONNECT || state == State.AUTHENTICATING) {
                    ctx.close();
                }
            }, settings.connectTimeoutMs(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
        try {
            if (!(msg instanceof MqttMessage m)) {
                return;
            }
            if (m.decoderResult().isFailure()) {
                onDecodeFailure(m.decoderResult().cause());
                return;
            }
            if (state == State.AUTHENTICATING) {
                if (early.size() >= MAX_EARLY) {
                    ctx.close();
                } else {
                    early.add(ReferenceCountUtil.retain(m));
                }
                return;
            }
            if (state == State.AWAIT_CONNECT) {
                if (m.fixedHeader().messageType() == MqttMessageType.CONNECT) {
                    onConnect((MqttConnectMessage) m);
                } else {
                    ctx.close(); // 3.1.0-1: the first packet must be CONNECT
                }
                return;
            }
            if (state != State.CONNECTED) {
                return;
            }
            if (m.fixedHeader().messageType() == MqttMessageType.PUBLISH) {
                final MqttPublishMessage p = (MqttPublishMessage) m;
                final byte[] payload = ByteBufUtil.getBytes(p.payload());
                final Session s = session;
                s.run(() -> onPublish(p.variableHeader().topicName(), payload, p.fixedHeader().qosLevel().value(),
                        p.fixedHeader().isRetain(), p.fixedHeader().isDup(), p.variableHeader().packetId(),
                        p.variableHeader().properties()));
                return;
            }
            ReferenceCountUtil.retain(m);
            session.run(() -> {
                try {
                    onPacket(m);
                } finally {
                    ReferenceCountUtil.release(m);
                }
            });
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onDecodeFailure(final Throwable cause) {
        if (state == State.AWAIT_CONNECT) {
            if (cause instanceof MqttUnacceptableProtocolVersionException) {
                connAckAndClose(MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION,
                        "unsupported protocol version");
            } else if (cause instanceof MqttIdentifierRejectedException) {
                connAckAndClose(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                        "client identifier rejected");
            } else {
                ctx.close();
            }
            return;
        }
        if (cause instanceof TooLongFrameException) {
            disconnect(0x95, "packet too large");
        } else if (String.valueOf(cause.getMessage()).startsWith("invalid publish topic name")) {
            disconnect(0x90, "topic name invalid: wildcards in a PUBLISH topic"); // 3.3.2-2
        } else {
            disconnect(0x81, "malformed packet: " + cause.getMessage());
        }
    }

    /** Refuses the CONNECT; an MQTT 5 client also gets {@code why} as the reason string. */
    private void connAckAndClose(final MqttConnectReturnCode code, final String why) {
        state = State.CLOSED;
        final MqttProperties props = new MqttProperties();
        if (version == 5) {
            props.add(new MqttProperties.StringProperty(MqttProperties.REASON_STRING, why));
        }
        LastWord.say(ctx.channel(), MqttMessageBuilders.connAck().returnCode(code).sessionPresent(false)
                .properties(props).build());
    }

    /**
     * Sends DISCONNECT with a reason (MQTT 5 only) and closes so that the client can read it (see {@link LastWord});
     * an MQTT 3.1.1 connection, which has no DISCONNECT from the server, is just closed.
     */
    void disconnect(final int reason, final String why) {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        if (version == 5) {
            final MqttProperties props = new MqttProperties();
            props.add(new MqttProperties.StringProperty(MqttProperties.REASON_STRING, why));
            LastWord.say(ctx.channel(), MqttMessageBuilders.disconnect().reasonCode((byte) reason).properties(props)
                    .build());
        } else {
            ctx.channel().close();
        }
    }

    /**
     * The user was deleted, disabled or moved to another namespace (from the administrator's thread): the connection
     * ends with DISCONNECT 0x98 Administrative action (3.1.1: the network connection closes), and its will is not
     * published, as there is no one left to publish it for.
     */
    private void revoked() {
        ctx.executor().execute(() -> {
            revoked = true;
            final Session s = session;
            if (s == null) {
                ctx.close();
            } else {
                s.run(() -> disconnect(0x98, "the user was deleted, disabled or moved to another namespace"));
            }
        });
    }

    // ------------------------------------------------------------------------------------------------ CONNECT

    /** Authenticates the CONNECT (asynchronously; later packets wait), then accepts it in {@link #connected}. */
    private void onConnect(final MqttConnectMessage m) {
        version = m.variableHeader().version();
        state = State.AUTHENTICATING;
        if (connectTimeout != null) {
            connectTimeout.cancel(false); // the CONNECT came; checking credentials may take a while on a busy broker
        }
        ReferenceCountUtil.retain(m);
        final Credentials credentials = new Credentials("mqtt", m.payload().userName(),
                m.payload().passwordInBytes() == null ? null
                        : new String(m.payload().passwordInBytes(), StandardCharsets.UTF_8),
                ctx.channel().remoteAddress());
        broker.accessControl().authenticate(credentials).whenCompleteAsync((r, e) -> {
            try {
                if (state != State.AUTHENTICATING) {
                    return; // closed meanwhile
                }
                if (e != null || r == null || !r.authenticated()) {
                    connAckAndClose(version == 5 ? MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USERNAME_OR_PASSWORD
                            : MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD,
                            "bad user name or password");
                    return;
                }
                principal = r.principal().orElse(Principal.ANONYMOUS);
                if (!broker.accessControl().connectionOpened(principal)) {
                    connAckAndClose(version == 5 ? MqttConnectReturnCode.CONNECTION_REFUSED_QUOTA_EXCEEDED
                            : MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE,
                            "connection quota of the namespace exceeded");
                    return;
                }
                countedConnection = true;
                topicWrites = broker.accessControl().grants(principal, ResourceKind.TOPIC, Action.PUB);
                topicReads = broker.accessControl().grants(principal, ResourceKind.TOPIC, Action.SUB);
                shareReads = broker.accessControl().grants(principal, ResourceKind.GROUP, Action.SUB);
                policyWatch = broker.accessControl().watch(principal, this::revoked);
                state = State.AWAIT_CONNECT;
                connected(m);
            } finally {
                ReferenceCountUtil.release(m);
                final List<MqttMessage> replay = new ArrayList<>(early);
                early.clear();
                for (MqttMessage p : replay) {
                    channelRead(ctx, p); // releases it
                }
            }
        }, ctx.executor());
    }

    private void connected(final MqttConnectMessage m) {
        connectTimeout.cancel(false);
        final MqttProperties props = m.variableHeader().properties();
        final boolean v5 = version == 5;
        if (v5 && props.getProperty(MqttProperties.AUTHENTICATION_METHOD) != null) {
            connAckAndClose(MqttConnectReturnCode.CONNECTION_REFUSED_BAD_AUTHENTICATION_METHOD,
                    "enhanced authentication is not supported");
            return;
        }
        final boolean cleanStart = m.variableHeader().isCleanSession();
        String clientId = m.payload().clientIdentifier();
        boolean assigned = false;
        if (clientId == null || clientId.isEmpty()) {
            if (!v5 && !cleanStart) {
                connAckAndClose(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                        "an empty client identifier needs a clean session"); // 3.1.3-8
                return;
            }
            clientId = "junction-" + UUID.randomUUID();
            assigned = true;
        } else if (broker.accessControl().enabled() && clientId.indexOf('%') >= 0) {
            // '%' separates a session's namespace from its client id (MqttNamespace): refused so no client id can
            // spell another tenant's session key.
            connAckAndClose(v5 ? MqttConnectReturnCode.CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID
                    : MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                    "a client identifier may not contain '%'");
            return;
        }
        if (m.variableHeader().isWillFlag()) {
            final String topic = m.payload().willTopic();
            if (!TopicFilter.isValidTopicName(topic)) {
                connAckAndClose(v5 ? MqttConnectReturnCode.CONNECTION_REFUSED_TOPIC_NAME_INVALID
                        : MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE,
                        "will topic invalid");
                return;
            }
            final MqttProperties wp = m.payload().willProperties();
            final Integer delay = wp == null ? null : MqttMessageMapping.intProperty(wp,
                    MqttProperties.WILL_DELAY_INTERVAL);
            will = new Will(topic, m.payload().willMessageInBytes(), m.variableHeader().willQos(),
                    m.variableHeader().isWillRetain(), wp == null ? MqttProperties.NO_PROPERTIES : wp,
                    delay == null ? 0 : delay & 0xFFFFFFFFL);
        }
        final Integer expiry = v5 ? MqttMessageMapping.intProperty(props, MqttProperties.SESSION_EXPIRY_INTERVAL) : null;
        final long expirySeconds = expiry == null ? 0 : expiry & 0xFFFFFFFFL;
        final boolean persistent = v5 ? expirySeconds > 0 : !cleanStart;
        final Integer rm = v5 ? MqttMessageMapping.intProperty(props, MqttProperties.RECEIVE_MAXIMUM) : null;
        final Integer mps = v5 ? MqttMessageMapping.intProperty(props, MqttProperties.MAXIMUM_PACKET_SIZE) : null;
        final Integer tam = v5 ? MqttMessageMapping.intProperty(props, MqttProperties.TOPIC_ALIAS_MAXIMUM) : null;
        clientTopicAliasMaximum = tam == null ? 0 : Math.max(0, Math.min(tam, 1024));
        final Integer rpi = v5 ? MqttMessageMapping.intProperty(props, MqttProperties.REQUEST_PROBLEM_INFORMATION)
                : null;
        problemInformation = rpi == null || rpi != 0;
        clientMaxPacketSize = mps == null || mps <= 0 ? Long.MAX_VALUE : mps & 0xFFFFFFFFL;
        final boolean serverKeepAlive = v5 && settings.serverKeepAlive() > 0;
        final int keepAlive = serverKeepAlive ? settings.serverKeepAlive() : m.variableHeader().keepAliveTimeSeconds();
        if (keepAlive > 0) {
            // 3.1.2-24: close after one and a half keep-alive intervals without a packet.
            ctx.pipeline().addBefore(ctx.name(), "keep-alive",
                    new IdleStateHandler(keepAlive * 1500L, 0, 0, TimeUnit.MILLISECONDS));
        }
        state = State.CONNECTED;
        final MqttNamespace namespace = broker.namespaceOf(principal);
        final MqttBroker.Taken taken = broker.takeSession(namespace.core(clientId), namespace, cleanStart,
                ctx.channel().eventLoop());
        session = taken.session();
        final String id = clientId;
        final boolean idAssigned = assigned;
        session.run(() -> {
            final MqttConnection previous = session.connection();
            if (previous != null && previous != this) {
                session.detach(previous, () -> { });
                previous.disconnect(0x8E, "session taken over");
            }
            session.setExpiry(persistent, v5 ? expirySeconds : persistent ? 0xFFFFFFFFL : 0);
            broker.sessionChanged(session);
            final MqttProperties ackProps = new MqttProperties();
            if (v5) {
                if (idAssigned) {
                    ackProps.add(new MqttProperties.StringProperty(MqttProperties.ASSIGNED_CLIENT_IDENTIFIER, id));
                }
                ackProps.add(new MqttProperties.IntegerProperty(MqttProperties.RECEIVE_MAXIMUM,
                        settings.receiveMaximum()));
                ackProps.add(new MqttProperties.IntegerProperty(MqttProperties.MAXIMUM_PACKET_SIZE,
                        settings.maxPacketSize()));
                ackProps.add(new MqttProperties.IntegerProperty(MqttProperties.TOPIC_ALIAS_MAXIMUM,
                        settings.topicAliasMaximum()));
                if (serverKeepAlive) {
                    ackProps.add(new MqttProperties.IntegerProperty(MqttProperties.SERVER_KEEP_ALIVE, keepAlive));
                }
            }
            final MqttConnAckMessage ack = MqttMessageBuilders.connAck()
                    .returnCode(MqttConnectReturnCode.CONNECTION_ACCEPTED)
                    .sessionPresent(taken.present() && !cleanStart).properties(ackProps).build();
            ctx.channel().write(ack);
            session.attach(this, rm == null || rm <= 0 ? 65535 : rm, mps == null || mps <= 0 ? Long.MAX_VALUE
                    : mps & 0xFFFFFFFFL);
        });
    }

    // ------------------------------------------------------------------------------------------------ PUBLISH in

    private void onPublish(final String topicName, final byte[] payload, final int qos, final boolean retain,
                           final boolean dup, final int packetId, final MqttProperties props) {
        if (state != State.CONNECTED) {
            return;
        }
        String topic = topicName;
        final Integer alias = version == 5 ? MqttMessageMapping.intProperty(props, MqttProperties.TOPIC_ALIAS) : null;
        if (alias != null) {
            if (alias <= 0 || alias > settings.topicAliasMaximum()) {
                disconnect(0x94, "topic alias invalid");
                return;
            }
            if (topic == null || topic.isEmpty()) {
                topic = inboundAliases.get(alias);
                if (topic == null) {
                    disconnect(0x82, "unknown topic alias");
                    return;
                }
            } else {
                inboundAliases.put(alias, topic);
            }
        }
        if (!TopicFilter.isValidTopicName(topic)) {
            disconnect(0x90, "topic name invalid"); // 3.3.2-2: no wildcards in a PUBLISH topic
            return;
        }
        final String coreTopic = session.namespace.core(CoreTopics.coreTopicOf(topic));
        if (!topicWrites.allows(coreTopic)) {
            refusePublish(qos, packetId, 0x87, "not authorized", true);
            return;
        }
        if (!broker.accessControl().admitPublish(principal, 1, payload.length).admitted()) {
            refusePublish(qos, packetId, 0x97, "quota exceeded", false); // QoS 0 dropped, as at most once allows
            return;
        }
        if (qos > 0 && ++inboundInflight > settings.receiveMaximum() && version == 5) {
            disconnect(0x93, "receive maximum exceeded");
            return;
        }
        if (qos == 2) {
            final CompletableFuture<Void> earlier = session.awaitingRelease.get(packetId);
            if (earlier != null) {
                inboundInflight--; // a duplicate: acknowledge again, store nothing
                queueAck(earlier, e -> write(pubReply(MqttMessageType.PUBREC, packetId, e)));
                return;
            }
        }
        final String mqttTopic = topic;
        // QoS 2 of a persistent session: the message's unique id is in the QoS 2 ledger before the message is stored.
        // A resend of a recorded packet id after a restart is stored only if the message did not make it.
        final Qos2Ledger.Inbound recorded = qos == 2 && dup ? session.recordedInbound(packetId) : null;
        final String uniqueId = qos != 2 ? null
                : recorded != null ? recorded.uniqueId() : session.recordInbound(packetId, coreTopic);
        final CompletableFuture<Void> stored;
        if (recorded != null) {
            stored = broker.messaging().queryById(recorded.coreTopic(), uniqueId)
                    .handle((m, e) -> m != null && m.isPresent())
                    .thenComposeAsync(found -> found ? CompletableFuture.<Void>completedFuture(null)
                            : broker.ensureTopic(coreTopic).thenCompose(queues -> store(mqttTopic, payload, qos,
                            retain, props, queues, uniqueId)), session.executor());
        } else if (serialized != null && !serialized.isDone()
                || broker.messaging().route(coreTopic).isEmpty()) {
            // A core topic about to be created: this and later publishes of the connection wait for the previous
            // one, so the first messages of a new topic keep their order (they all land in the topic's queue).
            final CompletableFuture<Void> previous = serialized == null ? CompletableFuture.completedFuture(null)
                    : serialized;
            stored = previous.handle((x, e) -> null).thenComposeAsync(x -> broker.ensureTopic(coreTopic)
                    .thenCompose(queues -> store(mqttTopic, payload, qos, retain, props, queues, uniqueId)),
                    session.executor());
            serialized = stored;
        } else {
            final int queues = broker.messaging().route(coreTopic).map(TopicConfig::queueCount).orElse(0);
            stored = store(topic, payload, qos, retain, props, queues, uniqueId);
        }
        switch (qos) {
            case 1 -> queueAck(stored, e -> {
                inboundInflight--;
                if (e != null && version != 5) {
                    LOG.warn("MQTT publish of {} to {} not stored, closing (3.1.1 has no negative PUBACK): {}",
                            session.clientId, mqttTopic, e.toString());
                    disconnect(0x80, "not stored");
                } else {
                    write(pubReply(MqttMessageType.PUBACK, packetId, e));
                }
            });
            case 2 -> {
                session.awaitingRelease.put(packetId, stored);
                queueAck(stored, e -> {
                    if (e != null) {
                        session.awaitingRelease.remove(packetId);
                        session.releaseInbound(packetId);
                        inboundInflight--;
                        if (version != 5) {
                            disconnect(0x80, "not stored");
                            return;
                        }
                    }
                    write(pubReply(MqttMessageType.PUBREC, packetId, e));
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
        if (version == 5) {
            if (qos > 0) {
                final MqttProperties props = new MqttProperties();
                addReasonString(props, why);
                writeAndFlush(new MqttMessage(new MqttFixedHeader(qos == 1 ? MqttMessageType.PUBACK
                        : MqttMessageType.PUBREC, false, MqttQoS.AT_MOST_ONCE, false, 0),
                        new MqttPubReplyMessageVariableHeader(packetId, (byte) reason, props)));
            }
        } else if (qos > 0 || closeAtQos0) {
            disconnect(reason, why);
        }
    }

    /** Stores a PUBLISH; {@code uniqueId} is the message's unique id when chosen in advance, else null. */
    private CompletableFuture<Void> store(final String topic, final byte[] payload, final int qos,
                                          final boolean retain, final MqttProperties props, final int queues,
                                          final String uniqueId) {
        final MqttMessageMapping.Inbound in = MqttMessageMapping.toCore(topic, session.namespace, payload, qos, retain,
                props, session.clientId, queues, uniqueId, System.currentTimeMillis());
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
                session.executor().execute(this::flushAcks);
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
            if (state == State.CONNECTED) {
                a.reply().accept(failure);
                replied = true;
            }
        }
        if (replied) {
            flush();
        }
    }

    private MqttMessage pubReply(final MqttMessageType type, final int packetId, final Throwable failure) {
        final int reason = failure == null ? 0 : reasonFor(failure);
        final MqttProperties props = failure == null ? MqttProperties.NO_PROPERTIES : new MqttProperties();
        if (failure != null) {
            addReasonString(props, String.valueOf(failure.getMessage()));
        }
        return new MqttMessage(new MqttFixedHeader(type, false,
                type == MqttMessageType.PUBREL ? MqttQoS.AT_LEAST_ONCE : MqttQoS.AT_MOST_ONCE, false, 0),
                new MqttPubReplyMessageVariableHeader(packetId, (byte) reason, props));
    }

    /**
     * Adds a reason string to an acknowledgement's properties: MQTT 5 only, unless the client asked for no problem
     * information, and only while the packet stays well inside the client's maximum size (3.1.2-25 lets us drop it).
     */
    private void addReasonString(final MqttProperties props, final String why) {
        if (version == 5 && problemInformation
                && ACK_SIZE_WITHOUT_REASON + 3L * why.length() <= clientMaxPacketSize) {
            props.add(new MqttProperties.StringProperty(MqttProperties.REASON_STRING, why));
        }
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

    // ------------------------------------------------------------------------------------------------ other packets

    private void onPacket(final MqttMessage m) {
        if (state != State.CONNECTED) {
            return;
        }
        switch (m.fixedHeader().messageType()) {
            case CONNECT -> disconnect(0x82, "second CONNECT"); // 3.1.0-2
            case PUBACK -> session.onPubAck(packetId(m));
            case PUBREC -> {
                final int reason = m.variableHeader() instanceof MqttPubReplyMessageVariableHeader h
                        ? h.reasonCode() & 0xFF : 0;
                session.onPubRec(packetId(m), reason >= 0x80);
            }
            case PUBCOMP -> session.onPubComp(packetId(m));
            case PUBREL -> {
                final int id = packetId(m);
                boolean known = session.awaitingRelease.remove(id) != null;
                if (known) {
                    inboundInflight--;
                }
                known |= session.releaseInbound(id); // one recorded before a restart counts as known too
                final MqttProperties props = known ? MqttProperties.NO_PROPERTIES : new MqttProperties();
                if (!known) {
                    addReasonString(props, "packet identifier " + id + " not found");
                }
                writeAndFlush(new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBCOMP, false,
                        MqttQoS.AT_MOST_ONCE, false, 0), new MqttPubReplyMessageVariableHeader(id,
                        (byte) (known || version != 5 ? 0 : 0x92), props)));
            }
            case SUBSCRIBE -> onSubscribe((MqttSubscribeMessage) m);
            case UNSUBSCRIBE -> onUnsubscribe((MqttUnsubscribeMessage) m);
            case PINGREQ -> writeAndFlush(new MqttMessage(new MqttFixedHeader(MqttMessageType.PINGRESP, false,
                    MqttQoS.AT_MOST_ONCE, false, 0)));
            case DISCONNECT -> {
                int reason = 0;
                if (m.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader h) {
                    reason = h.reasonCode() & 0xFF;
                    final Integer expiry = MqttMessageMapping.intProperty(h.properties(),
                            MqttProperties.SESSION_EXPIRY_INTERVAL);
                    if (expiry != null && session.persistent()) {
                        session.setExpiry(expiry != 0, expiry & 0xFFFFFFFFL);
                        broker.sessionChanged(session);
                    }
                }
                normalDisconnect = reason != 0x04; // 0x04: disconnect with will message
                state = State.CLOSED;
                ctx.channel().close();
            }
            default -> disconnect(0x82, "unexpected " + m.fixedHeader().messageType());
        }
    }

    private static int packetId(final MqttMessage m) {
        return ((MqttMessageIdVariableHeader) m.variableHeader()).messageId();
    }

    private void onSubscribe(final MqttSubscribeMessage m) {
        final int packetId = m.idAndPropertiesVariableHeader().messageId();
        final MqttProperties props = m.idAndPropertiesVariableHeader().properties();
        final Integer subId = MqttMessageMapping.intProperty(props, MqttProperties.SUBSCRIPTION_IDENTIFIER);
        final List<MqttTopicSubscription> subs = m.payload().topicSubscriptions();
        final int[] codes = new int[subs.size()];
        final Subscription[] added = new Subscription[subs.size()];
        final boolean[] existed = new boolean[subs.size()];
        final TopicFilter[] filters = new TopicFilter[subs.size()];
        for (int i = 0; i < subs.size(); i++) {
            filters[i] = TopicFilter.parse(subs.get(i).topicFilter());
            if (version == 5 && filters[i] != null && filters[i].shared() && subs.get(i).option().isNoLocal()) {
                disconnect(0x82, "no local on a shared subscription"); // 3.8.3-4: a protocol error, nothing applied
                return;
            }
        }
        final StringBuilder refused = new StringBuilder();
        for (int i = 0; i < subs.size(); i++) {
            final MqttTopicSubscription s = subs.get(i);
            final TopicFilter f = filters[i];
            final String problem;
            final int failure;
            if (f == null) {
                failure = 0x8F;
                problem = "topic filter invalid";
            } else if (f.shared() && f.coreTopic() == null) {
                failure = 0x9E;
                problem = "a shared subscription needs a first topic level without wildcards";
            } else if (settings.denied().refuses(f)) {
                failure = 0x87;
                problem = "subscriptions to this filter are not allowed on this broker";
            } else if (!mayRead(f)) {
                failure = 0x87;
                problem = "not authorized";
            } else {
                final int qos = Math.min(2, s.option().qos().value());
                final Subscription sub = new Subscription(f, qos, version == 5 && s.option().isNoLocal(),
                        version == 5 && s.option().isRetainAsPublished(),
                        version == 5 ? s.option().retainHandling().value() : 0, subId == null ? 0 : subId);
                existed[i] = session.subscribe(sub);
                added[i] = sub;
                codes[i] = qos;
                continue;
            }
            codes[i] = version == 5 ? failure : 0x80;
            refused.append(refused.isEmpty() ? "" : "; ").append(s.topicFilter()).append(": ").append(problem);
        }
        broker.sessionChanged(session);
        final MqttProperties ackProps = refused.isEmpty() ? MqttProperties.NO_PROPERTIES : new MqttProperties();
        if (!refused.isEmpty()) {
            addReasonString(ackProps, refused.toString());
        }
        writeAndFlush(new MqttSubAckMessage(new MqttFixedHeader(MqttMessageType.SUBACK, false, MqttQoS.AT_MOST_ONCE,
                false, 0), new MqttMessageIdAndPropertiesVariableHeader(packetId, ackProps),
                new MqttSubAckPayload(codes)));
        for (int i = 0; i < added.length; i++) {
            final Subscription sub = added[i];
            if (sub != null && (sub.retainHandling() == 0 || sub.retainHandling() == 1 && !existed[i])) {
                session.sendRetained(sub);
            }
        }
    }

    /** SUB on the filter's core topic (every topic for a root wildcard), and on the share group if shared. */
    private boolean mayRead(final TopicFilter f) {
        final var acl = broker.accessControl();
        final MqttNamespace ns = session.namespace;
        final String topic = ns.core(f.coreTopic() == null ? "*" : f.coreTopic());
        return acl.allows(principal, ResourceKind.TOPIC, topic, Action.SUB)
                && (!f.shared() || acl.allows(principal, ResourceKind.GROUP, ns.core("mqtt-share-"
                        + CoreTopics.escape(f.shareGroup())), Action.SUB));
    }

    private void onUnsubscribe(final MqttUnsubscribeMessage m) {
        final int packetId = m.idAndPropertiesVariableHeader().messageId();
        final List<String> topics = m.payload().topics();
        final short[] codes = new short[topics.size()];
        final StringBuilder problems = new StringBuilder();
        for (int i = 0; i < topics.size(); i++) {
            final String filter = topics.get(i);
            final String problem;
            if (TopicFilter.parse(filter) == null) {
                codes[i] = 0x8F;
                problem = "topic filter invalid";
            } else if (session.unsubscribe(filter)) {
                continue; // 0x00
            } else {
                codes[i] = 0x11;
                problem = "no subscription existed";
            }
            problems.append(problems.isEmpty() ? "" : "; ").append(filter).append(": ").append(problem);
        }
        broker.sessionChanged(session);
        final MqttProperties props = problems.isEmpty() ? MqttProperties.NO_PROPERTIES : new MqttProperties();
        if (!problems.isEmpty()) {
            addReasonString(props, problems.toString());
        }
        writeAndFlush(new MqttUnsubAckMessage(new MqttFixedHeader(MqttMessageType.UNSUBACK, false,
                MqttQoS.AT_MOST_ONCE, false, 0), new MqttMessageIdAndPropertiesVariableHeader(packetId, props),
                new MqttUnsubAckPayload(codes)));
    }

    // ------------------------------------------------------------------------------------------------ events

    @Override
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
        if (evt instanceof IdleStateEvent) {
            final Session s = session;
            if (s == null) {
                ctx.close();
            } else {
                s.run(() -> disconnect(0x8D, "keep alive timeout"));
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx) {
        final Session s = session;
        if (s != null && state == State.CONNECTED) {
            s.run(s::readComplete);
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(final ChannelHandlerContext ctx) {
        final Session s = session;
        if (s != null && ctx.channel().isWritable()) {
            s.run(s::drain);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        if (!(cause instanceof IOException)) {
            // A peer resetting the connection is routine; anything else is a bug worth a stack trace.
            LOG.warn("MQTT connection {} closed on an unexpected error", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }

    /** Publishes the will, if its user may publish to its topic under the rules in force now (not at CONNECT). */
    private void publishWill(final Session s) {
        if (broker.accessControl().allows(principal, ResourceKind.TOPIC,
                s.namespace.core(CoreTopics.coreTopicOf(will.topic())), Action.PUB)) {
            broker.publishWill(s, will);
        }
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) {
        early.forEach(ReferenceCountUtil::release);
        early.clear();
        if (countedConnection) {
            countedConnection = false;
            broker.accessControl().connectionClosed(principal);
        }
        policyWatch.cancel();
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
        }
        final Session s = session;
        if (s != null) {
            s.run(() -> {
                state = State.CLOSED;
                s.detach(this, () -> broker.sessionEnded(s));
                if (will != null && !normalDisconnect && !revoked) {
                    final long delay = Math.min(will.delaySeconds(), s.persistent() ? s.sessionExpirySeconds() : 0);
                    if (delay <= 0) {
                        publishWill(s);
                    } else {
                        s.executor().schedule(() -> {
                            if (!s.online() || s.closed()) {
                                publishWill(s); // 3.1.3-9: unless the session resumed first
                            }
                        }, delay, TimeUnit.SECONDS);
                    }
                }
            });
        }
        state = State.CLOSED;
        ctx.fireChannelInactive();
    }
}
