package io.junction.bench.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
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
import java.nio.charset.StandardCharsets;

/**
 * This machine's HTTP ceiling: a Netty server that reads each request whole and answers 202 with a small JSON body,
 * storing nothing. The CloudEvents ingress figure is quoted as a share of this server's rate, measured with the same
 * load generator in the same run (see {@code scripts/cloudevents-ingress.sh}).
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.junction.bench.http.HttpCeilingServer PORT [THREADS]}.
 */
public final class HttpCeilingServer {
    private static final byte[] BODY = "{\"messageIds\":[\"0\"]}".getBytes(StandardCharsets.US_ASCII);

    private HttpCeilingServer() {
    }

    public static void main(final String[] args) throws InterruptedException {
        final int port = Integer.parseInt(args[0]);
        final int threads = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory());
        try {
            new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(final SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(8 << 20),
                                    new SimpleChannelInboundHandler<FullHttpRequest>() {
                                        @Override
                                        protected void channelRead0(final ChannelHandlerContext ctx,
                                                                    final FullHttpRequest request) {
                                            final FullHttpResponse response = new DefaultFullHttpResponse(
                                                    HttpVersion.HTTP_1_1, HttpResponseStatus.ACCEPTED,
                                                    Unpooled.wrappedBuffer(BODY));
                                            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json")
                                                    .setInt(HttpHeaderNames.CONTENT_LENGTH, BODY.length);
                                            final boolean keepAlive = HttpUtil.isKeepAlive(request);
                                            if (keepAlive) {
                                                ctx.writeAndFlush(response);
                                            } else {
                                                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
                                            }
                                        }
                                    });
                        }
                    }).bind(port).sync().channel().closeFuture().sync();
        } finally {
            group.shutdownGracefully();
        }
    }
}
