package io.junction.mqtt;

import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.junction.spi.metrics.ConnectionCounter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.util.ReferenceCountUtil;

/**
 * MQTT over WebSocket (spec section 6) at {@code /mqtt} on the shared HTTP listener: the upgrade request is taken
 * over, the handshake answers with the {@code mqtt} subprotocol, and binary frames carry the MQTT byte stream into the
 * same decoder, encoder and {@link MqttConnection} as the TCP listener.
 */
final class MqttOverWebSocket implements HttpHandler {
    static final String PATH = "/mqtt";

    private final MqttBroker broker;
    private final ConnectionCounter connections;

    MqttOverWebSocket(final MqttBroker broker, final ConnectionCounter connections) {
        this.broker = broker;
        this.connections = connections;
    }

    @Override
    public void handle(final HttpExchange exchange) {
        final String upgrade = exchange.request().headers().get("Upgrade");
        if (upgrade == null || !upgrade.equalsIgnoreCase("websocket")) {
            exchange.respond(HttpResponseStatus.BAD_REQUEST, "text/plain", "MQTT over WebSocket: upgrade required\n");
            return;
        }
        final String url = "ws://" + exchange.request().headers().get("Host") + PATH;
        final WebSocketServerHandshaker handshaker = new WebSocketServerHandshakerFactory(url,
                "mqtt,mqttv3.1", false, broker.settings().maxPacketSize() + 16).newHandshaker(exchange.request());
        if (handshaker == null) {
            exchange.respond(HttpResponseStatus.UPGRADE_REQUIRED, "text/plain", "unsupported WebSocket version\n");
            return;
        }
        final ChannelPipeline pipeline = exchange.takeOver();
        handshaker.handshake(exchange.channel(), exchange.request());
        pipeline.addLast("ws-frames-in", new FramesToBytes())
                .addLast("ws-frames-out", BytesToFrames.INSTANCE)
                .addLast("mqtt-decoder", new MqttDecoder(broker.settings().maxPacketSize(), 65535))
                .addLast("mqtt-encoder", MqttEncoder.INSTANCE)
                .addLast("mqtt", new MqttConnection(broker));
        connections.opened();
        exchange.channel().closeFuture().addListener(f -> connections.closed());
    }

    /** Binary and continuation frames → bytes; answers pings; a close frame closes. */
    private static final class FramesToBytes extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
            if (!(msg instanceof WebSocketFrame frame)) {
                ctx.fireChannelRead(msg);
                return;
            }
            if (frame instanceof BinaryWebSocketFrame || frame instanceof ContinuationWebSocketFrame) {
                ctx.fireChannelRead(frame.content());
                return;
            }
            try {
                if (frame instanceof PingWebSocketFrame) {
                    ctx.writeAndFlush(new PongWebSocketFrame(frame.content().retain()));
                } else if (frame instanceof CloseWebSocketFrame) {
                    ctx.close();
                } else if (!(frame instanceof PongWebSocketFrame)) {
                    ctx.close(); // text frames are not MQTT (6.0-1)
                }
            } finally {
                ReferenceCountUtil.release(frame);
            }
        }
    }

    /** Encoded MQTT bytes → binary frames. */
    @ChannelHandler.Sharable
    private static final class BytesToFrames extends ChannelOutboundHandlerAdapter {
        static final BytesToFrames INSTANCE = new BytesToFrames();

        @Override
        public void write(final ChannelHandlerContext ctx, final Object msg, final ChannelPromise promise) {
            ctx.write(msg instanceof ByteBuf b ? new BinaryWebSocketFrame(b) : msg, promise);
        }
    }
}
