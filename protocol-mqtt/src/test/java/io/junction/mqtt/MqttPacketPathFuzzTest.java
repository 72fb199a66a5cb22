package io.junction.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.tenancy.AccessControl;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * Arbitrary bytes on an MQTT connection, after an optional valid CONNECT, through the real packet path: Netty's
 * decoder capped at the broker's maximum packet size, {@link MqttConnection} and its session, over a real store (an
 * in-VM channel stands in for the socket). Whatever arrives, the broker answers or closes — it never throws an error
 * nobody handled (logged with a stack trace), never leaves the connection hanging after the client left, and the next
 * client is served normally.
 */
@Tag("fuzz")
class MqttPacketPathFuzzTest {
    private static final int MAX_PACKET = 64 * 1024;
    private static final LocalAddress ADDRESS = new LocalAddress("mqtt-fuzz");
    private static final AtomicInteger UNHANDLED = new AtomicInteger();
    private static final List<String> UNHANDLED_TEXT = new ArrayList<>();
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private static MessageStore store;
    private static EventLoopGroup loops;
    private static ChannelGroup serverChannels;

    private static synchronized void startOnce() throws Exception {
        if (store != null) {
            return;
        }
        final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        final AppenderBase<ILoggingEvent> counter = new AppenderBase<>() {
            @Override
            protected void append(final ILoggingEvent event) {
                if (event.getThrowableProxy() != null) {
                    synchronized (UNHANDLED_TEXT) {
                        UNHANDLED_TEXT.add(event.getFormattedMessage() + ": " + event.getThrowableProxy().getClassName()
                                + ": " + event.getThrowableProxy().getMessage());
                    }
                    UNHANDLED.incrementAndGet();
                }
            }
        };
        counter.setContext(root.getLoggerContext());
        counter.start();
        root.addAppender(counter);

        final Path dir = Files.createTempDirectory("mqtt-fuzz");
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(64 << 20).maxMessageSize(MAX_PACKET)
                .flushInterval(Duration.ofMillis(50)).diskFullRatio(1.01).maxDiskUsedRatio(1.01).build());
        loops = new MultiThreadIoEventLoopGroup(2, LocalIoHandler.newFactory());
        final MqttBroker broker = new MqttBroker(store, AccessControl.open(),
                new MqttSettings(MAX_PACKET, 1000, 64, 64, 20_000, 8, 2, 60_000, 0,
                        SubscriptionDenyList.NONE), loops);
        broker.start().get(10, TimeUnit.SECONDS);
        serverChannels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        new ServerBootstrap().group(loops).channel(LocalServerChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel ch) {
                        serverChannels.add(ch);
                        ch.pipeline().addLast(new MqttDecoder(MAX_PACKET, 65535), MqttEncoder.INSTANCE,
                                new MqttConnection(broker));
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
        final int version = data.consumeInt(0, 2); // 0: raw bytes only, 1: after a 3.1.1 CONNECT, 2: after a 5.0 one
        final byte[] bytes = data.consumeRemainingAsBytes();

        final Channel client = connect();
        if (version > 0) {
            client.write(Unpooled.wrappedBuffer(connect(version == 2, "fuzz-" + CLIENTS.incrementAndGet())));
        }
        // The broker may already have closed the connection (a bad CONNECT): then the write fails, which is fine.
        client.writeAndFlush(Unpooled.wrappedBuffer(bytes)).awaitUninterruptibly();
        client.close().sync();
        // The server side of every connection must go away once the client left (no hang, no stuck session task).
        // Generous: while fuzzing, retained messages pile up in the shared store and a wildcard subscription in one
        // input has a lot to send on a loaded machine (a 5 s bound once tripped there; the input replays fine).
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!serverChannels.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(serverChannels.size()).as("server connections still open after the client closed").isZero();
        synchronized (UNHANDLED_TEXT) {
            assertThat(UNHANDLED.get()).as("errors nobody handled: %s", UNHANDLED_TEXT).isZero();
        }
    }

    private static Channel connect() throws InterruptedException {
        return new Bootstrap().group(loops).channel(LocalChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
                        ReferenceCountUtil.release(msg); // answers are not checked here
                    }
                }).connect(ADDRESS).sync().channel();
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
