package io.junction.remoting;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.fuzz.ProblemLog;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RemotingDecoder;
import io.junction.remoting.protocol.RemotingEncoder;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.metrics.ConnectionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ReferenceCountUtil;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * Arbitrary bytes on a Remoting connection through the pipeline the front-end builds
 * ({@link RemotingFrontEnd#initPipeline}): the frame decoder, JSON and ROCKETMQ header decoding, the request handler
 * and every processor, over a real store (an in-VM channel stands in for the socket). The frame cap is
 * {@value #MAX_FRAME} bytes here, small enough for fuzz-sized inputs to cross it.
 *
 * <p>The input's last byte picks what the rest becomes ({@link RemotingFrameRecipes}), so the fuzzer reaches the
 * processors quickly: 0 raw bytes; 1 frames with a valid length prefix and JSON type around a fuzzed header and body;
 * 2 frames with a ROCKETMQ binary header made of fuzzed fields; 3 requests of known codes with a JSON header of fuzzed
 * field values.
 *
 * <p>For every input: nothing logs a warning or error with a stack trace (an exception nobody handled) or a Netty
 * leak; the decoder holds less than one maximum frame; a stream that breaks framing (a length outside [4, max], an
 * unknown serialize type, a header longer than its frame) is closed by the server on its own; the server side closes
 * once the client leaves and the connection gauge returns to zero; a fresh client's route query is answered; checking
 * back the half messages and reviving the popped messages left so far goes without errors.
 */
@Tag("fuzz")
class RemotingFramePathFuzzTest {
    static final int MAX_FRAME = 1024;
    private static final LocalAddress ADDRESS = new LocalAddress("remoting-fuzz");
    private static final String BROKER_NAME = "fuzz-broker";
    private static final long WAIT_SECONDS = 10;
    private static final BlockingQueue<Channel> ACCEPTED = new LinkedBlockingQueue<>();
    private static final AtomicInteger OPAQUES = new AtomicInteger();
    private static final Method INTERNAL_BUFFER;

    static {
        try {
            // The decoder's cumulation is only visible to subclasses; the test reads it to check the frame cap.
            INTERNAL_BUFFER = ByteToMessageDecoder.class.getDeclaredMethod("internalBuffer");
            INTERNAL_BUFFER.setAccessible(true);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static ProblemLog problems;
    private static MessageStore store;
    private static EventLoopGroup loops;
    private static ConnectionCounter connections;

    private static synchronized void startOnce() throws Exception {
        if (store != null) {
            return;
        }
        problems = ProblemLog.attach();
        final Path dir = Files.createTempDirectory("remoting-fuzz");
        // Half messages are due for their check-back at once: the test runs a check round (and a POP revive round)
        // after every input, so what an input leaves behind is found while that input is the one running.
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(64 << 20).flushInterval(Duration.ofMillis(50))
                .diskFullRatio(1.01).maxDiskUsedRatio(1.01).transactionFirstCheck(Duration.ofMillis(1))
                .transactionCheckInterval(Duration.ofMillis(1)).build());
        loops = new MultiThreadIoEventLoopGroup(2, LocalIoHandler.newFactory());
        connections = new ConnectionCounter(new SimpleMeterRegistry(), "remoting");

        final RemotingFrontEnd frontEnd = new RemotingFrontEnd();
        final Map<String, String> values = new HashMap<>();
        for (ConfigKey key : frontEnd.configKeys()) {
            values.put(key.name(), key.defaultValue());
        }
        values.put("remoting.port", "0");
        values.put("remoting.max-frame-size", Integer.toString(MAX_FRAME));
        // Long polls that outlive their connection pile up in the store until they time out: keep that short.
        values.put("remoting.max-long-poll-ms", "1000");
        final FrontEndConfig config = new FrontEndConfig("remoting", values);
        final RemotingHandler handler = frontEnd.handler(store, config,
                new BrokerIdentity(BROKER_NAME, "FuzzCluster", "127.0.0.1:9876"));
        final int idleMillis = config.intValue("idle-timeout-ms");
        final int highWater = (int) config.size("write-buffer-high");

        new ServerBootstrap().group(loops).channel(LocalServerChannel.class)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(highWater / 2, highWater))
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel ch) {
                        ch.pipeline().addLast("connections", connections.handler());
                        RemotingFrontEnd.initPipeline(ch.pipeline(), idleMillis, MAX_FRAME, handler);
                        ACCEPTED.add(ch);
                    }
                }).bind(ADDRESS).sync();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            store.close();
        }));
    }

    /** The broker starts before the first input, so its start-up never counts against an input's time limit. */
    @BeforeAll
    static void startBroker() throws Exception {
        startOnce();
    }

    @Timeout(1) // while fuzzing: an input that takes over a second is a hang finding (see junit-platform.properties)
    @FuzzTest(maxDuration = "10m")
    void arbitraryBytes(final FuzzedDataProvider data) throws Exception {
        startOnce();
        final int mode = data.consumeInt(0, 3);
        final byte[] input = RemotingFrameRecipes.build(mode, data.consumeRemainingAsBytes());

        final Channel client = connect(new Discard());
        final Channel server = ACCEPTED.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        try {
            assertThat(server).as("the server accepted the connection").isNotNull();
            client.writeAndFlush(Unpooled.wrappedBuffer(input)).sync();

            // The server reads the input before this task runs: at most one incomplete frame may stay in the decoder.
            final int buffered = server.eventLoop().submit(() -> bufferedInDecoder(server))
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(buffered).as("bytes held by the frame decoder").isLessThan(MAX_FRAME);
            if (RemotingFrameRecipes.breaksFraming(input, MAX_FRAME)) {
                assertThat(server.closeFuture().await(WAIT_SECONDS, TimeUnit.SECONDS))
                        .as("the server closes a stream whose framing is broken").isTrue();
            }
        } finally {
            client.close().sync(); // also after a failed check: the next input starts with no connection open
        }
        assertThat(server.closeFuture().await(WAIT_SECONDS, TimeUnit.SECONDS))
                .as("the server side closes once the client left").isTrue();

        assertRouteAnswered();
        store.checkTransactionsNow();
        store.reviveNow();
        assertThat(eventually(() -> connections.current() == 0)).as("open connections counted after all closed")
                .isTrue();
        problems.assertNone();
    }

    /** A new client's GET_ROUTEINFO_BY_TOPIC for the auto-create template topic gets this broker's route. */
    private static void assertRouteAnswered() throws Exception {
        final int opaque = OPAQUES.incrementAndGet();
        final CompletableFuture<RemotingCommand> answer = new CompletableFuture<>();
        final Channel client = connect(new Answer(opaque, answer));
        final Channel server = ACCEPTED.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        final RemotingCommand response;
        try {
            assertThat(server).as("the server accepted the check connection").isNotNull();
            client.writeAndFlush(RemotingCommand.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, opaque, false)
                    .put("topic", "TBW102"));
            response = answer.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } finally {
            client.close().sync();
        }
        assertThat(server.closeFuture().await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        assertThat(response.isResponse()).isTrue();
        assertThat(response.code()).as("route query answer: %s", response).isEqualTo(ResponseCode.SUCCESS);
        // Inputs may have created TBW102 with queues and permissions of their own: only this node's presence is fixed.
        assertThat(new String(response.body(), StandardCharsets.UTF_8))
                .contains("\"brokerAddrs\":{\"0\":\"127.0.0.1:9876\"},\"brokerName\":\"" + BROKER_NAME + "\"")
                .contains("\"queueDatas\":[{\"brokerName\":\"" + BROKER_NAME + "\"");
    }

    private static Channel connect(final ChannelHandler handler) throws InterruptedException {
        return new Bootstrap().group(loops).channel(LocalChannel.class).handler(handler).connect(ADDRESS).sync()
                .channel();
    }

    /** Bytes the channel's frame decoder holds (0 once it is gone); call on the channel's event loop. */
    private static int bufferedInDecoder(final Channel server) throws ReflectiveOperationException {
        final ChannelHandler decoder = server.pipeline().get("decoder");
        if (decoder == null || !server.isOpen()) {
            return 0; // a failing decoder keeps what followed the bad frame until the closed channel removes it
        }
        return ((ByteBuf) INTERNAL_BUFFER.invoke(decoder)).readableBytes();
    }

    private static boolean eventually(final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            LockSupport.parkNanos(50_000);
        }
        return true;
    }

    /** The fuzzing client: answers are not checked. */
    private static final class Discard extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
            ReferenceCountUtil.release(msg);
        }
    }

    /** The checking client: encodes its request, decodes frames, completes with the response to one opaque. */
    private static final class Answer extends ChannelInitializer<Channel> {
        private final int opaque;
        private final CompletableFuture<RemotingCommand> answer;

        Answer(final int opaque, final CompletableFuture<RemotingCommand> answer) {
            this.opaque = opaque;
            this.answer = answer;
        }

        @Override
        protected void initChannel(final Channel ch) {
            ch.pipeline().addLast(RemotingEncoder.INSTANCE, new RemotingDecoder(16 << 20),
                    new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
                            final RemotingCommand cmd = (RemotingCommand) msg;
                            if (cmd.isResponse() && cmd.opaque() == opaque) {
                                answer.complete(cmd);
                            }
                        }

                        @Override
                        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
                            answer.completeExceptionally(cause);
                        }
                    });
        }
    }
}
