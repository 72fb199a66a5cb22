package io.junction.bench.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.util.function.Consumer;

/**
 * A push subscription's sink for the load tools: a Netty HTTP server on a free loopback port that hands each request to
 * {@code received} and answers 200 at once, so the broker's push delivery is measured, not the sink.
 */
final class LocalSink {
    private LocalSink() {
    }

    /** Binds the sink on {@code group}; its channel's local address tells the port. */
    static Channel start(final EventLoopGroup group, final Consumer<FullHttpRequest> received)
            throws InterruptedException {
        return new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20),
                                new SimpleChannelInboundHandler<FullHttpRequest>() {
                                    @Override
                                    protected void channelRead0(final ChannelHandlerContext ctx,
                                                                final FullHttpRequest request) {
                                        received.accept(request);
                                        final FullHttpResponse ok = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                                                HttpResponseStatus.OK, Unpooled.EMPTY_BUFFER);
                                        ok.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
                                        if (HttpUtil.isKeepAlive(request)) {
                                            ctx.writeAndFlush(ok);
                                        } else {
                                            ctx.writeAndFlush(ok).addListener(ChannelFutureListener.CLOSE);
                                        }
                                    }
                                });
                    }
                }).bind("127.0.0.1", 0).sync().channel();
    }
}
