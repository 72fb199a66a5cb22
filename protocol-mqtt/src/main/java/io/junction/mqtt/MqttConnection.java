package io.junction.mqtt;

import io.junction.spi.clients.ClientRegistry;
import io.junction.tenancy.Credentials;
import io.junction.tenancy.Principal;
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
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttUnacceptableProtocolVersionException;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
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
    /** MQTT 5 DISCONNECT reason code 0x98: an operator closed the connection. */
    private static final int ADMINISTRATIVE_ACTION = 0x98;
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
    /** The accepted CONNECT: the client's limits, which acknowledgements and aliases respect (null before). */
    private ConnectRequest accepted;
    /** Topic aliases we assigned towards the client (null before CONNECT is accepted). */
    private OutboundAliases outboundAliases;
    /** Packets that came while CONNECT was being authenticated, replayed after it. */
    private final EarlyPackets early = new EarlyPackets();
    /** The connection's user: principal, quota slot, grants (admitted when the CONNECT is authenticated). */
    private final ConnectionUser user;
    /** The user may no longer act: its will is not published. */
    private volatile boolean revoked;

    /** The PUBLISHes this client sends us, and their acknowledgements. */
    private final InboundPublishes publishes;
    /** The SUBSCRIBEs and UNSUBSCRIBEs this client sends us. */
    private final SubscribeRequests subscriptions;
    /** This connection in the broker's list of clients, once accepted (set on the session's thread). */
    private volatile ClientRegistry.Registration listed;

    MqttConnection(final MqttBroker broker) {
        this.broker = broker;
        this.settings = broker.settings();
        this.user = new ConnectionUser(broker.accessControl());
        this.publishes = new InboundPublishes(this, broker);
        this.subscriptions = new SubscribeRequests(this, broker);
    }

    boolean connected() {
        return state == State.CONNECTED;
    }

    int version() {
        return version;
    }

    Session session() {
        return session;
    }

    Principal principal() {
        return user.principal();
    }

    /** Whether the connection's user may publish to the core topic now. */
    boolean mayWrite(final String coreTopic) {
        return user.mayWrite(coreTopic);
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
        return user.mayRead(coreTopic);
    }

    /** Whether the connection's user may receive messages of the core topic through the core share group now. */
    boolean mayReadShared(final String coreTopic, final String shareGroup) {
        return user.mayReadShared(coreTopic, shareGroup);
    }

    /** The alias to send a topic under (see {@link OutboundAliases#aliasOf}). */
    int outboundAlias(final String topic) {
        return outboundAliases.aliasOf(topic);
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
                if (!early.hold(m)) {
                    ctx.close();
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
                s.run(() -> publishes.onPublish(p.variableHeader().topicName(), payload,
                        p.fixedHeader().qosLevel().value(), p.fixedHeader().isRetain(), p.fixedHeader().isDup(),
                        p.variableHeader().packetId(), p.variableHeader().properties()));
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
                if (!user.admit(r.principal().orElse(Principal.ANONYMOUS), this::revoked)) {
                    connAckAndClose(version == 5 ? MqttConnectReturnCode.CONNECTION_REFUSED_QUOTA_EXCEEDED
                            : MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE,
                            "connection quota of the namespace exceeded");
                    return;
                }
                state = State.AWAIT_CONNECT;
                connected(m);
            } finally {
                ReferenceCountUtil.release(m);
                for (MqttMessage p : early.takeAll()) {
                    channelRead(ctx, p); // releases it
                }
            }
        }, ctx.executor());
    }

    private void connected(final MqttConnectMessage m) {
        connectTimeout.cancel(false);
        final ConnectRequest.Outcome outcome = ConnectRequest.parse(m, settings, broker.accessControl().enabled());
        if (outcome.refusal() != null) {
            connAckAndClose(outcome.refusal(), outcome.why());
            return;
        }
        final ConnectRequest request = outcome.request();
        will = request.will();
        accepted = request;
        outboundAliases = new OutboundAliases(request.topicAliasMaximum());
        if (request.keepAlive() > 0) {
            // 3.1.2-24: close after one and a half keep-alive intervals without a packet.
            ctx.pipeline().addBefore(ctx.name(), "keep-alive",
                    new IdleStateHandler(request.keepAlive() * 1500L, 0, 0, TimeUnit.MILLISECONDS));
        }
        state = State.CONNECTED;
        final MqttNamespace namespace = broker.namespaceOf(user.principal());
        final MqttBroker.Taken taken = broker.takeSession(namespace.core(request.clientId()), namespace,
                request.cleanStart(), ctx.channel().eventLoop());
        session = taken.session();
        session.run(() -> {
            final MqttConnection previous = session.connection();
            if (previous != null && previous != this) {
                session.detach(previous, () -> { });
                previous.disconnect(0x8E, "session taken over");
            }
            session.setExpiry(request.persistent(), request.expiryToKeep());
            broker.sessionChanged(session);
            final MqttProperties ackProps = request.connAckProperties(settings);
            final MqttConnAckMessage ack = MqttMessageBuilders.connAck()
                    .returnCode(MqttConnectReturnCode.CONNECTION_ACCEPTED)
                    .sessionPresent(taken.present() && !request.cleanStart()).properties(ackProps).build();
            ctx.channel().write(ack);
            session.attach(this, request.receiveMaximum(), request.maxPacketSize());
            listed = broker.clients().add("mqtt", version == 5 ? "5.0" : version == 4 ? "3.1.1" : "3.1",
                    request.clientId(),
                    user.principal().name(), ctx.channel().remoteAddress(), this::subscriptionTexts,
                    () -> ctx.channel().eventLoop().execute(() -> disconnect(ADMINISTRATIVE_ACTION,
                            "disconnected by an administrator")));
            if (!ctx.channel().isActive()) {
                listed.close(); // closed meanwhile, and channelInactive may have looked before the line above
            }
        });
    }

    /**
     * The session's subscriptions, shared ones too, as the client sent them (read from any thread: the lists are
     * republished whole).
     */
    private List<String> subscriptionTexts() {
        final Session s = session;
        return s == null ? List.of() : s.allFilters().stream().map(TopicFilter::text).toList();
    }

    // ------------------------------------------------------------------------------------------------ PUBLISH in

    /**
     * Adds a reason string to an acknowledgement's properties: MQTT 5 only, unless the client asked for no problem
     * information, and only while the packet stays well inside the client's maximum size (3.1.2-25 lets us drop it).
     */
    void addReasonString(final MqttProperties props, final String why) {
        // MQTT 5 Request Problem Information 0 (3.1.2.11.7): reason strings only on CONNACK and DISCONNECT.
        if (version == 5 && accepted != null && accepted.problemInformation()
                && ACK_SIZE_WITHOUT_REASON + 3L * why.length() <= accepted.maxPacketSize()) {
            props.add(new MqttProperties.StringProperty(MqttProperties.REASON_STRING, why));
        }
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
            case PUBREL -> publishes.onPubRel(packetId(m));
            case SUBSCRIBE -> subscriptions.onSubscribe((MqttSubscribeMessage) m);
            case UNSUBSCRIBE -> subscriptions.onUnsubscribe((MqttUnsubscribeMessage) m);
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

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) {
        if (listed != null) {
            listed.close();
        }
        early.release();
        user.release();
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
        }
        final Session s = session;
        if (s != null) {
            s.run(() -> {
                state = State.CLOSED;
                s.detach(this, () -> broker.sessionEnded(s));
                if (will != null && !normalDisconnect && !revoked) {
                    will.connectionLost(broker, user.principal(), s);
                }
            });
        }
        state = State.CLOSED;
        ctx.fireChannelInactive();
    }
}
