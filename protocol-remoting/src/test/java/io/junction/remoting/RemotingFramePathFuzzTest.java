package io.junction.remoting;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RemotingDecoder;
import io.junction.remoting.protocol.RemotingEncoder;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.fuzz.LocalChannelHarness;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.WriteBufferWaterMark;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * Arbitrary bytes on a Remoting connection through the pipeline the front-end builds
 * ({@link RemotingFrontEnd#initPipeline}): the frame decoder, JSON and ROCKETMQ header decoding, the request handler
 * and every processor, over a real store, on the shared {@link LocalChannelHarness}. The frame cap is
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
    private static final String BROKER_NAME = "fuzz-broker";
    private static final AtomicInteger OPAQUES = new AtomicInteger();

    private static MessageStore store;
    private static LocalChannelHarness harness;

    private static synchronized void startOnce() throws Exception {
        if (harness != null) {
            return;
        }
        final Path dir = Files.createTempDirectory("remoting-fuzz");
        // Half messages are due for their check-back at once: the test runs a check round (and a POP revive round)
        // after every input, so what an input leaves behind is found while that input is the one running.
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(64 << 20).flushInterval(Duration.ofMillis(50))
                .diskFullRatio(1.01).maxDiskUsedRatio(1.01).transactionFirstCheck(Duration.ofMillis(1))
                .transactionCheckInterval(Duration.ofMillis(1)).build());
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

        harness = new LocalChannelHarness("remoting").serve(new WriteBufferWaterMark(highWater / 2, highWater),
                ch -> RemotingFrontEnd.initPipeline(ch.pipeline(), idleMillis, MAX_FRAME, handler));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            harness.close();
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

        try (LocalChannelHarness.Connection c = harness.connect()) {
            c.send(input);
            // The server reads the input before the check runs: at most one incomplete frame may stay in the decoder.
            assertThat(c.buffered("decoder")).as("bytes held by the frame decoder").isLessThan(MAX_FRAME);
            if (RemotingFrameRecipes.breaksFraming(input, MAX_FRAME)) {
                assertThat(c.serverClosed()).as("the server closes a stream whose framing is broken").isTrue();
            }
        }

        assertRouteAnswered();
        store.checkTransactionsNow();
        store.reviveNow();
        harness.assertClean();
    }

    /** A new client's GET_ROUTEINFO_BY_TOPIC for the auto-create template topic gets this broker's route. */
    private static void assertRouteAnswered() throws Exception {
        final int opaque = OPAQUES.incrementAndGet();
        final CompletableFuture<RemotingCommand> answer = new CompletableFuture<>();
        final RemotingCommand response;
        try (LocalChannelHarness.Connection c = harness.connect(new Answer(opaque, answer))) {
            c.client().writeAndFlush(RemotingCommand.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, opaque, false)
                    .put("topic", "TBW102"));
            response = answer.get(LocalChannelHarness.WAIT_SECONDS, TimeUnit.SECONDS);
        }

        assertThat(response.isResponse()).isTrue();
        assertThat(response.code()).as("route query answer: %s", response).isEqualTo(ResponseCode.SUCCESS);
        // Inputs may have created TBW102 with queues and permissions of their own: only this node's presence is fixed.
        assertThat(new String(response.body(), StandardCharsets.UTF_8))
                .contains("\"brokerAddrs\":{\"0\":\"127.0.0.1:9876\"},\"brokerName\":\"" + BROKER_NAME + "\"")
                .contains("\"queueDatas\":[{\"brokerName\":\"" + BROKER_NAME + "\"");
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
