package io.junction.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.fuzz.ProblemLog;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.metrics.ConnectionCounter;
import io.junction.tenancy.AccessControl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.security.SaslCode;
import org.apache.qpid.proton.amqp.security.SaslOutcome;
import org.apache.qpid.proton.amqp.transport.Open;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * Arbitrary bytes on an AMQP connection through the pipeline the front-end builds (connection counter, then
 * {@link AmqpConnection}: protocol header check, proton-j transport with the {@link FrameGuard}, SASL, endpoints, links)
 * over a real store; an in-VM channel stands in for the socket. The frame cap is {@value #MAX_FRAME} bytes here, small
 * enough for fuzz-sized inputs to cross it.
 *
 * <p>The input's last byte picks what comes before the rest of it: 0 nothing; 1 the plain AMQP protocol header (SASL
 * skipped, the client is anonymous); 2 a SASL ANONYMOUS exchange (the client waits for its outcome, as clients do),
 * the AMQP header, an OPEN and a BEGIN on channel 0, so the fuzzed bytes are session frames: attach, transfer, flow,
 * disposition, detach, end.
 *
 * <p>For every input: nothing logs a warning or error with a stack trace (an exception nobody handled) or a Netty
 * leak; a stream that breaks the protocol header or AMQP framing (a frame size below 8 or above the cap, a data offset
 * outside the frame) is closed by the server on its own; the server side closes once the client leaves and the
 * connection gauge returns to zero; a fresh client gets through SASL and is answered with an OPEN.
 */
@Tag("fuzz")
class AmqpFramePathFuzzTest {
    static final int MAX_FRAME = 1024;
    private static final LocalAddress ADDRESS = new LocalAddress("amqp-fuzz");
    /** The front-end's water marks (see {@link AmqpFrontEnd}). */
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(32 * 1024, 256 * 1024);
    private static final long WAIT_SECONDS = 10;
    private static final BlockingQueue<Channel> ACCEPTED = new LinkedBlockingQueue<>();
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private static ProblemLog problems;
    private static MessageStore store;
    private static EventLoopGroup loops;
    private static ConnectionCounter connections;

    private static synchronized void startOnce() throws Exception {
        if (store != null) {
            return;
        }
        problems = ProblemLog.attach();
        final Path dir = Files.createTempDirectory("amqp-fuzz");
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(64 << 20).flushInterval(Duration.ofMillis(50))
                .diskFullRatio(1.01).maxDiskUsedRatio(1.01).build());
        loops = new MultiThreadIoEventLoopGroup(2, LocalIoHandler.newFactory());
        connections = new ConnectionCounter(new SimpleMeterRegistry(), "amqp");

        final Map<String, String> values = new HashMap<>();
        for (ConfigKey key : AmqpSettings.keys()) {
            values.put(key.name(), key.defaultValue());
        }
        values.put("amqp.max-frame-size", Integer.toString(MAX_FRAME));
        final AmqpBroker broker = new AmqpBroker(store, AccessControl.open(),
                AmqpSettings.from(new FrontEndConfig("amqp", values)));
        broker.removeLeftovers();

        new ServerBootstrap().group(loops).channel(LocalServerChannel.class)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel ch) {
                        ch.pipeline().addLast("connections", connections.handler())
                                .addLast("amqp", new AmqpConnection(broker));
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
        final int mode = data.consumeInt(0, 2);
        final byte[] bytes = data.consumeRemainingAsBytes();

        final AmqpPeer peer = new AmqpPeer();
        final Channel client = connect(peer);
        final Channel server = ACCEPTED.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        try {
            assertThat(server).as("the server accepted the connection").isNotNull();
            if (mode == 1) {
                client.write(Unpooled.wrappedBuffer(AmqpFrames.AMQP_HEADER));
            } else if (mode == 2) {
                authenticate(client, peer);
                client.write(Unpooled.wrappedBuffer(AmqpFrames.AMQP_HEADER,
                        AmqpFrames.open("fuzz-" + CLIENTS.incrementAndGet()), AmqpFrames.begin()));
            }
            client.writeAndFlush(Unpooled.wrappedBuffer(bytes)).sync();

            if (AmqpFrames.breaksFraming(mode, bytes, MAX_FRAME)) {
                assertThat(server.closeFuture().await(WAIT_SECONDS, TimeUnit.SECONDS))
                        .as("the server closes a stream whose header or framing is broken").isTrue();
            }
        } finally {
            client.close().sync(); // also after a failed check: the next input starts with no connection open
        }
        assertThat(server.closeFuture().await(WAIT_SECONDS, TimeUnit.SECONDS))
                .as("the server side closes once the client left").isTrue();

        assertOpenAnswered();
        assertThat(eventually(() -> connections.current() == 0)).as("open connections counted after all closed")
                .isTrue();
        problems.assertNone();
    }

    /** SASL header and an ANONYMOUS init; returns once the server's outcome (OK) arrived. */
    private static void authenticate(final Channel client, final AmqpPeer peer) throws InterruptedException {
        client.writeAndFlush(Unpooled.wrappedBuffer(AmqpFrames.SASL_HEADER, AmqpFrames.saslInit("ANONYMOUS")));
        final SaslOutcome outcome = peer.await(SaslOutcome.class, WAIT_SECONDS);
        assertThat(outcome).as("SASL outcome").isNotNull();
        assertThat(outcome.getCode()).isEqualTo(SaslCode.OK);
    }

    /** A new client authenticates and opens; the broker answers with its OPEN, announcing the frame cap. */
    private static void assertOpenAnswered() throws InterruptedException {
        final AmqpPeer peer = new AmqpPeer();
        final Channel client = connect(peer);
        final Channel server = ACCEPTED.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        final Open open;
        try {
            assertThat(server).as("the server accepted the check connection").isNotNull();
            authenticate(client, peer);
            client.writeAndFlush(Unpooled.wrappedBuffer(AmqpFrames.AMQP_HEADER, AmqpFrames.open("fuzz-check")));
            open = peer.await(Open.class, WAIT_SECONDS);
        } finally {
            client.close().sync();
        }
        assertThat(server.closeFuture().await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        assertThat(open).as("the broker's OPEN").isNotNull();
        assertThat(open.getContainerId()).isEqualTo("junction");
        assertThat(open.getMaxFrameSize()).isEqualTo(UnsignedInteger.valueOf(MAX_FRAME));
        assertThat(open.getOfferedCapabilities()).contains(Symbol.valueOf("ANONYMOUS-RELAY"));
    }

    private static Channel connect(final AmqpPeer peer) throws InterruptedException {
        return new Bootstrap().group(loops).channel(LocalChannel.class).handler(peer).connect(ADDRESS).sync()
                .channel();
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
}
