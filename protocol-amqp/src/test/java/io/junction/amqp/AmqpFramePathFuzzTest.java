package io.junction.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.fuzz.LocalChannelHarness;
import io.junction.tenancy.AccessControl;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
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
 * over a real store, on the shared {@link LocalChannelHarness}. The frame cap is {@value #MAX_FRAME} bytes here, small
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
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private static MessageStore store;
    private static LocalChannelHarness harness;

    private static synchronized void startOnce() throws Exception {
        if (harness != null) {
            return;
        }
        final Path dir = Files.createTempDirectory("amqp-fuzz");
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(64 << 20).flushInterval(Duration.ofMillis(50))
                .diskFullRatio(1.01).maxDiskUsedRatio(1.01).build());
        final Map<String, String> values = new HashMap<>();
        for (ConfigKey key : AmqpSettings.keys()) {
            values.put(key.name(), key.defaultValue());
        }
        values.put("amqp.max-frame-size", Integer.toString(MAX_FRAME));
        final AmqpBroker broker = new AmqpBroker(store, AccessControl.open(),
                AmqpSettings.from(new FrontEndConfig("amqp", values)));
        broker.removeLeftovers();

        harness = new LocalChannelHarness("amqp").serve(AmqpFrontEnd.WATER_MARK,
                ch -> ch.pipeline().addLast("amqp", new AmqpConnection(broker)));
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
        final int mode = data.consumeInt(0, 2);
        final byte[] bytes = data.consumeRemainingAsBytes();

        final AmqpPeer peer = new AmqpPeer();
        try (LocalChannelHarness.Connection c = harness.connect(peer)) {
            final Channel client = c.client();
            if (mode == 1) {
                client.write(Unpooled.wrappedBuffer(AmqpFrames.AMQP_HEADER));
            } else if (mode == 2) {
                authenticate(client, peer);
                client.write(Unpooled.wrappedBuffer(AmqpFrames.AMQP_HEADER,
                        AmqpFrames.open("fuzz-" + CLIENTS.incrementAndGet()), AmqpFrames.begin()));
            }
            c.send(bytes);
            if (AmqpFrames.breaksFraming(mode, bytes, MAX_FRAME)) {
                assertThat(c.serverClosed()).as("the server closes a stream whose header or framing is broken")
                        .isTrue();
            }
        }

        assertOpenAnswered();
        harness.assertClean();
    }

    /** SASL header and an ANONYMOUS init; returns once the server's outcome (OK) arrived. */
    private static void authenticate(final Channel client, final AmqpPeer peer) throws InterruptedException {
        client.writeAndFlush(Unpooled.wrappedBuffer(AmqpFrames.SASL_HEADER, AmqpFrames.saslInit("ANONYMOUS")));
        final SaslOutcome outcome = peer.await(SaslOutcome.class, LocalChannelHarness.WAIT_SECONDS);
        assertThat(outcome).as("SASL outcome").isNotNull();
        assertThat(outcome.getCode()).isEqualTo(SaslCode.OK);
    }

    /** A new client authenticates and opens; the broker answers with its OPEN, announcing the frame cap. */
    private static void assertOpenAnswered() throws InterruptedException {
        final AmqpPeer peer = new AmqpPeer();
        final Open open;
        try (LocalChannelHarness.Connection c = harness.connect(peer)) {
            authenticate(c.client(), peer);
            c.client().writeAndFlush(Unpooled.wrappedBuffer(AmqpFrames.AMQP_HEADER, AmqpFrames.open("fuzz-check")));
            open = peer.await(Open.class, LocalChannelHarness.WAIT_SECONDS);
        }

        assertThat(open).as("the broker's OPEN").isNotNull();
        assertThat(open.getContainerId()).isEqualTo("junction");
        assertThat(open.getMaxFrameSize()).isEqualTo(UnsignedInteger.valueOf(MAX_FRAME));
        assertThat(open.getOfferedCapabilities()).contains(Symbol.valueOf("ANONYMOUS-RELAY"));
    }
}
