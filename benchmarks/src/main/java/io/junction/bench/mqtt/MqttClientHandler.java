package io.junction.bench.mqtt;

import io.junction.bench.measure.LatencyRecorder;
import io.junction.bench.measure.OpenLoopLatency;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPubAckMessage;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One MQTT 3.1.1 client connection of the load: a publisher keeps {@code window} QoS 1 publishes unacknowledged
 * (a new one per PUBACK while the run lasts); a subscriber subscribes at QoS 1, acknowledges every delivery and
 * records its end-to-end latency (the payload starts with the sender's {@link System#nanoTime()}; both ends live in
 * this process). An idle client only connects and pings. Every handler runs on its channel's event loop, so its
 * counters and recorder are single-threaded; {@link Run} sums them after the run.
 *
 * <p>In a fixed-rate run ({@link Run#openLoop} set) a publisher has no window: the driver asks for each publish at its
 * intended time ({@link #publishAt}), the payload carries that intended time instead of the send time, and PUBACKs and
 * deliveries are recorded against it in the shared {@link OpenLoopLatency}.
 */
final class MqttClientHandler extends SimpleChannelInboundHandler<MqttMessage> {
    enum Role { PUBLISHER, SUBSCRIBER, IDLE }

    private final Role role;
    private final String clientId;
    private final Run run;
    private final int keepAliveSeconds;
    private final String username;
    private final String password;
    final CompletableFuture<Void> ready = new CompletableFuture<>();
    /** Subscribers only: a recorder starts at 128 KiB, too much for thousands of idle clients. */
    final LatencyRecorder latency;
    long acked;
    long received;
    long receivedMeasured;
    long ackedMeasured;
    private int nextPacketId;
    private int outstanding;
    /** Fixed-rate publishers: the intended send time of each unacknowledged packet id. */
    private long[] intendedById;

    /** @param username null connects without credentials (then {@code password} is ignored) */
    MqttClientHandler(final Role role, final String clientId, final Run run, final int keepAliveSeconds,
                      final String username, final String password) {
        this.username = username;
        this.password = password;
        this.role = role;
        this.clientId = clientId;
        this.run = run;
        this.keepAliveSeconds = keepAliveSeconds;
        this.latency = role == Role.SUBSCRIBER ? new LatencyRecorder() : null;
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) {
        final MqttMessageBuilders.ConnectBuilder connect = MqttMessageBuilders.connect().clientId(clientId)
                .cleanSession(true).protocolVersion(MqttVersion.MQTT_3_1_1).keepAlive(keepAliveSeconds);
        if (username != null) {
            connect.hasUser(true).username(username).hasPassword(password != null)
                    .password(password == null ? null : password.getBytes(StandardCharsets.UTF_8));
        }
        ctx.writeAndFlush(connect.build());
        if (keepAliveSeconds > 0) {
            // Ping at half the keep-alive, starting at a random point so thousands of idle clients spread out.
            final long periodMs = keepAliveSeconds * 500L;
            final long firstMs = (long) (Math.random() * periodMs);
            ctx.executor().scheduleAtFixedRate(() -> {
                if (ctx.channel().isActive()) {
                    ctx.writeAndFlush(new MqttMessage(new MqttFixedHeader(MqttMessageType.PINGREQ, false,
                            MqttQoS.AT_MOST_ONCE, false, 0)));
                }
            }, firstMs, periodMs, TimeUnit.MILLISECONDS);
        }
        ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(final ChannelHandlerContext ctx, final MqttMessage msg) {
        if (msg.decoderResult().isFailure()) {
            fail(ctx, new IllegalStateException("undecodable packet: " + msg.decoderResult().cause()));
            return;
        }
        switch (msg.fixedHeader().messageType()) {
            case CONNACK -> onConnAck(ctx, (MqttConnAckMessage) msg);
            case SUBACK -> ready.complete(null);
            case PUBACK -> onPubAck(ctx, (MqttPubAckMessage) msg);
            case PUBLISH -> onPublish(ctx, (MqttPublishMessage) msg);
            case PINGRESP -> { }
            default -> fail(ctx, new IllegalStateException("unexpected " + msg.fixedHeader().messageType()));
        }
    }

    private void onConnAck(final ChannelHandlerContext ctx, final MqttConnAckMessage ack) {
        if (ack.variableHeader().connectReturnCode() != MqttConnectReturnCode.CONNECTION_ACCEPTED) {
            fail(ctx, new IllegalStateException("CONNACK " + ack.variableHeader().connectReturnCode()));
            return;
        }
        if (role == Role.SUBSCRIBER) {
            ctx.writeAndFlush(MqttMessageBuilders.subscribe().messageId(1)
                    .addSubscription(MqttQoS.AT_LEAST_ONCE, run.topic).build());
        } else {
            ready.complete(null);
        }
    }

    /** Starts publishing (publishers only); called on this channel's event loop once every client is ready. */
    void startPublishing(final ChannelHandlerContext ctx) {
        for (int i = 0; i < run.window; i++) {
            publish(ctx);
        }
        ctx.flush();
    }

    private void publish(final ChannelHandlerContext ctx) {
        if (!run.publishing) {
            return;
        }
        final ByteBuf payload = ctx.alloc().buffer(run.payloadSize);
        payload.writeLong(System.nanoTime());
        payload.writeZero(run.payloadSize - Long.BYTES);
        nextPacketId = nextPacketId == 65535 ? 1 : nextPacketId + 1;
        outstanding++;
        // Built directly: MqttMessageBuilders.publish() copies the payload into a new buffer and drops ours.
        ctx.write(new MqttPublishMessage(
                new MqttFixedHeader(MqttMessageType.PUBLISH, false, MqttQoS.AT_LEAST_ONCE, false, 0),
                new MqttPublishVariableHeader(run.topic, nextPacketId), payload));
    }

    /**
     * Fixed-rate publishers: publishes one message intended at {@code intendedNanos}, on this channel's event loop.
     * All 65,535 packet ids unacknowledged = the broker stopped answering: counted as failed, not sent.
     */
    void publishAt(final ChannelHandlerContext ctx, final long intendedNanos) {
        final OpenLoopLatency open = run.openLoop;
        if (outstanding == 65535) {
            open.failed(intendedNanos);
            return;
        }
        if (intendedById == null) {
            intendedById = new long[65536];
        }
        do {
            nextPacketId = nextPacketId == 65535 ? 1 : nextPacketId + 1;
        } while (intendedById[nextPacketId] != 0);
        intendedById[nextPacketId] = intendedNanos;
        outstanding++;
        final ByteBuf payload = ctx.alloc().buffer(run.payloadSize);
        payload.writeLong(intendedNanos);
        payload.writeZero(run.payloadSize - Long.BYTES);
        ctx.writeAndFlush(new MqttPublishMessage(
                new MqttFixedHeader(MqttMessageType.PUBLISH, false, MqttQoS.AT_LEAST_ONCE, false, 0),
                new MqttPublishVariableHeader(run.topic, nextPacketId), payload));
    }

    private void onPubAck(final ChannelHandlerContext ctx, final MqttPubAckMessage ack) {
        outstanding--;
        acked++;
        if (run.openLoop != null) {
            final int id = ack.variableHeader().messageId();
            run.openLoop.acked(intendedById[id]);
            intendedById[id] = 0;
            return;
        }
        if (run.measuring) {
            ackedMeasured++;
        }
        publish(ctx);
        ctx.flush();
    }

    private void onPublish(final ChannelHandlerContext ctx, final MqttPublishMessage publish) {
        received++;
        final ByteBuf payload = publish.payload();
        if (run.openLoop != null) {
            run.openLoop.delivered(payload.getLong(payload.readerIndex()));
        } else if (run.measuring) {
            receivedMeasured++;
            if (payload.readableBytes() >= Long.BYTES) {
                latency.record(System.nanoTime() - payload.getLong(payload.readerIndex()));
            }
        }
        if (publish.fixedHeader().qosLevel() != MqttQoS.AT_MOST_ONCE) {
            ctx.writeAndFlush(new MqttPubAckMessage(new MqttFixedHeader(MqttMessageType.PUBACK, false,
                    MqttQoS.AT_MOST_ONCE, false, 2),
                    MqttMessageIdVariableHeader.from(publish.variableHeader().packetId())));
        }
    }

    int outstanding() {
        return outstanding;
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) {
        if (!ready.isDone()) {
            ready.completeExceptionally(new IllegalStateException(clientId + ": connection closed before ready"));
        }
        run.closed(this);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        fail(ctx, cause);
    }

    private void fail(final ChannelHandlerContext ctx, final Throwable cause) {
        ready.completeExceptionally(cause);
        ctx.close();
    }

    /** What every client of one run shares: the parameters and the phase flags the main thread flips. */
    static final class Run {
        final String topic;
        final int window;
        final int payloadSize;
        volatile boolean publishing = true;
        volatile boolean measuring;
        /** Set for a fixed-rate run: publishers publish when the driver says, latencies go here. */
        final OpenLoopLatency openLoop;
        private final AtomicInteger closed = new AtomicInteger();

        Run(final String topic, final int window, final int payloadSize) {
            this(topic, window, payloadSize, null);
        }

        Run(final String topic, final int window, final int payloadSize, final OpenLoopLatency openLoop) {
            this.topic = topic;
            this.window = window;
            this.payloadSize = Math.max(Long.BYTES, payloadSize);
            this.openLoop = openLoop;
        }

        void closed(final MqttClientHandler client) {
            closed.incrementAndGet();
        }

        int closedConnections() {
            return closed.get();
        }
    }
}
