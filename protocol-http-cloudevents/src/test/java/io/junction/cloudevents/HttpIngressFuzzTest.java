package io.junction.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.junction.core.message.Message;
import io.junction.spi.fuzz.LocalChannelHarness;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * Arbitrary bytes as HTTP requests on a connection of the shared {@link LocalChannelHarness}: Netty's request decoder
 * (with small line and header caps, so fuzz-sized inputs cross them) and aggregator, as the broker's listener reads
 * requests, into the CloudEvents ingress: {@link EventDecoder} (binary, structured and batch modes, validation) and the
 * mapping onto core messages ({@link IngressProbe}).
 *
 * <p>For every input: every decoded request either yields events that all map to a core message (202), or is refused
 * with a {@link Problem} that is a client error (4xx); a request the decoder rejects gets 400 and the connection
 * closes; a request cut off by the client leaving closes the connection; any other exception reaches the end of the
 * pipeline and is logged, which fails the input. The decoder holds at most one line or header block; the server side
 * closes once the client left and the gauge returns to zero; and a fresh client's valid binary-mode event is accepted.
 */
@Tag("fuzz")
class HttpIngressFuzzTest {
    private static final int MAX_REQUEST = 64 * 1024;
    private static final int MAX_INITIAL_LINE = 1024;
    private static final int MAX_HEADER_BYTES = 1024;
    private static LocalChannelHarness harness;

    private static synchronized void startOnce() throws Exception {
        if (harness != null) {
            return;
        }
        final EventDecoder decoder = new EventDecoder(new ObjectMapper(), MAX_REQUEST, 16);
        final CloudEventMapping mapping = new CloudEventMapping("http://127.0.0.1:8080", "io.junction.event");
        final IngressProbe probe = new IngressProbe(decoder, mapping);
        harness = new LocalChannelHarness("http").serve(null, ch -> ch.pipeline()
                .addLast("decoder", new HttpRequestDecoder(new HttpDecoderConfig()
                        .setMaxInitialLineLength(MAX_INITIAL_LINE).setMaxHeaderSize(MAX_HEADER_BYTES)))
                .addLast("encoder", new HttpResponseEncoder())
                .addLast("aggregator", new HttpObjectAggregator(MAX_REQUEST))
                .addLast("ingress", probe));
        Runtime.getRuntime().addShutdownHook(new Thread(harness::close));
    }

    /** The harness starts before the first input, so its start-up never counts against an input's time limit. */
    @BeforeAll
    static void startServer() throws Exception {
        startOnce();
    }

    @Timeout(1) // while fuzzing: an input that takes over a second is a hang finding (see junit-platform.properties)
    @FuzzTest(maxDuration = "10m")
    void arbitraryRequest(final FuzzedDataProvider data) throws Exception {
        startOnce();
        try (LocalChannelHarness.Connection c = harness.connect()) {
            c.send(data.consumeRemainingAsBytes());
            assertThat(c.buffered("decoder")).as("bytes held by the request decoder")
                    .isLessThan(MAX_INITIAL_LINE + MAX_HEADER_BYTES);
        }
        assertEventAccepted();
        harness.assertClean();
    }

    /** A new client's binary-mode event is accepted. */
    private static void assertEventAccepted() throws Exception {
        final BlockingQueue<HttpResponseStatus> answers = new LinkedBlockingQueue<>();
        try (LocalChannelHarness.Connection c = harness.connect(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(final Channel ch) {
                ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(MAX_REQUEST),
                        new SimpleChannelInboundHandler<FullHttpResponse>() {
                            @Override
                            protected void channelRead0(final ChannelHandlerContext ctx, final FullHttpResponse msg) {
                                answers.add(msg.status());
                            }
                        });
            }
        })) {
            final FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                    "/events/orders", Unpooled.copiedBuffer("hello", StandardCharsets.UTF_8));
            request.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain")
                    .set(HttpHeaderNames.CONTENT_LENGTH, request.content().readableBytes())
                    .set("ce-specversion", "1.0").set("ce-id", "check").set("ce-source", "/fuzz")
                    .set("ce-type", "fuzz.check");
            c.client().writeAndFlush(request);
            assertThat(answers.poll(LocalChannelHarness.WAIT_SECONDS, TimeUnit.SECONDS)).as("answer to a valid event")
                    .isEqualTo(HttpResponseStatus.ACCEPTED);
        }
    }

    /**
     * The ingress's decisions without its store: a decoded request becomes events that all map to a core message
     * (202), or a {@link Problem}, which must be a client error (anything else throws, into the pipeline's end).
     */
    @ChannelHandler.Sharable
    private static final class IngressProbe extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final EventDecoder decoder;
        private final CloudEventMapping mapping;

        IngressProbe(final EventDecoder decoder, final CloudEventMapping mapping) {
            this.decoder = decoder;
            this.mapping = mapping;
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final FullHttpRequest request) {
            if (request.decoderResult().isFailure()) {
                respond(ctx, HttpResponseStatus.BAD_REQUEST, false);
                return;
            }
            respond(ctx, ingest(request), HttpUtil.isKeepAlive(request));
        }

        private HttpResponseStatus ingest(final FullHttpRequest request) {
            final List<CloudEvent> events;
            try {
                events = decoder.decode(request);
            } catch (Problem refused) {
                if (refused.status().code() < 400 || refused.status().code() >= 500) {
                    throw new IllegalStateException("a refusal must be a client error, was " + refused.status());
                }
                return refused.status();
            }
            for (CloudEvent event : events) {
                final Message m = mapping.toMessage("fuzz", event);
                if (m.body() == null || m.properties() == null) {
                    throw new IllegalStateException("event mapped to an incomplete message: " + event);
                }
            }
            return HttpResponseStatus.ACCEPTED;
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            if (cause instanceof PrematureChannelClosureException) {
                ctx.close(); // a request cut off by the client leaving: the listener just closes such a connection
            } else {
                ctx.fireExceptionCaught(cause); // reaches the pipeline's end and is logged: a finding
            }
        }

        private static void respond(final ChannelHandlerContext ctx, final HttpResponseStatus status,
                                    final boolean keepAlive) {
            final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status);
            response.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
            if (keepAlive) {
                ctx.writeAndFlush(response);
            } else {
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            }
        }
    }
}
