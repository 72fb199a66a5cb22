package io.junction.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.spi.fuzz.LocalChannelHarness;
import io.junction.tenancy.AccessControl;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * Arbitrary bytes on an MQTT connection, after an optional valid CONNECT, through the real packet path (the pipeline
 * {@link MqttFrontEnd#initPipeline} builds: Netty's decoder capped at the broker's maximum packet size,
 * {@link MqttConnection} and its session) over a real store, on the shared {@link LocalChannelHarness}.
 *
 * <p>For every input: nothing logs an error nobody handled or a leak; the decoder holds at most one maximum packet;
 * the server side closes once the client left (no hang, no stuck session task) and the connection gauge returns to
 * zero; a fresh client's CONNECT is accepted and its PINGREQ answered.
 */
@Tag("fuzz")
class MqttPacketPathFuzzTest {
    private static final int MAX_PACKET = 64 * 1024;
    /** A fixed header: one type byte and at most four bytes of remaining length. */
    private static final int FIXED_HEADER = 5;
    private static final byte[] PINGREQ = {(byte) 0xC0, 0};
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private static MessageStore store;
    private static LocalChannelHarness harness;

    private static synchronized void startOnce() throws Exception {
        if (harness != null) {
            return;
        }
        final Path dir = Files.createTempDirectory("mqtt-fuzz");
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(64 << 20).maxMessageSize(MAX_PACKET)
                .flushInterval(Duration.ofMillis(50)).diskFullRatio(1.01).maxDiskUsedRatio(1.01).build());
        final LocalChannelHarness h = new LocalChannelHarness("mqtt");
        final MqttSettings settings = new MqttSettings(MAX_PACKET, 1000, 64, 64, 20_000, 8, 2, 60_000, 0,
                SubscriptionDenyList.NONE);
        final MqttBroker broker = new MqttBroker(store, AccessControl.open(), settings, h.loops());
        broker.start().get(10, TimeUnit.SECONDS);
        h.serve(MqttFrontEnd.WATER_MARK, ch -> MqttFrontEnd.initPipeline(ch.pipeline(), settings, broker));
        harness = h;
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
        final int version = data.consumeInt(0, 2); // 0: raw bytes only, 1: after a 3.1.1 CONNECT, 2: after a 5.0 one
        final byte[] bytes = data.consumeRemainingAsBytes();

        try (LocalChannelHarness.Connection c = harness.connect()) {
            if (version > 0) {
                c.client().write(Unpooled.wrappedBuffer(connect(version == 2, "fuzz-" + CLIENTS.incrementAndGet())));
            }
            // The broker may already have closed the connection (a bad CONNECT): then the write fails, which is fine.
            c.send(bytes);
            assertThat(c.buffered(MqttFrontEnd.DECODER)).as("bytes held by the packet decoder")
                    .isLessThanOrEqualTo(MAX_PACKET + FIXED_HEADER);
        }
        assertServed();
        harness.assertClean();
    }

    /** A new client's CONNECT is accepted and its PINGREQ answered. */
    private static void assertServed() throws Exception {
        final BlockingQueue<MqttMessage> answers = new LinkedBlockingQueue<>();
        try (LocalChannelHarness.Connection c = harness.connect(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(final Channel ch) {
                ch.pipeline().addLast(new MqttDecoder(), new SimpleChannelInboundHandler<MqttMessage>() {
                    @Override
                    protected void channelRead0(final ChannelHandlerContext ctx, final MqttMessage msg) {
                        answers.add(msg);
                    }
                });
            }
        })) {
            c.send(connect(false, "fuzz-check"), PINGREQ); // 3.1.1: the client decoder reads 3.1.1
            final MqttMessage ack = answers.poll(LocalChannelHarness.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(ack).as("CONNACK").isInstanceOf(MqttConnAckMessage.class);
            assertThat(((MqttConnAckMessage) ack).variableHeader().connectReturnCode())
                    .isEqualTo(MqttConnectReturnCode.CONNECTION_ACCEPTED);
            final MqttMessage pong = answers.poll(LocalChannelHarness.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(pong).as("PINGRESP").isNotNull();
            assertThat(pong.fixedHeader().messageType()).isEqualTo(MqttMessageType.PINGRESP);
        }
    }

    /** A minimal CONNECT: clean start, keep-alive 60 s, the given client id. */
    static byte[] connect(final boolean v5, final String clientId) {
        final byte[] id = clientId.getBytes(StandardCharsets.UTF_8);
        final ByteBuf variable = Unpooled.buffer();
        variable.writeShort(4).writeBytes("MQTT".getBytes(StandardCharsets.US_ASCII)).writeByte(v5 ? 5 : 4)
                .writeByte(0x02).writeShort(60);
        if (v5) {
            variable.writeByte(0); // no properties
        }
        variable.writeShort(id.length).writeBytes(id);
        final ByteBuf packet = Unpooled.buffer();
        packet.writeByte(0x10).writeByte(variable.readableBytes()).writeBytes(variable);
        variable.release();
        final byte[] out = new byte[packet.readableBytes()];
        packet.readBytes(out);
        packet.release();
        return out;
    }
}
