package io.junction.kafka;

import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.spi.clients.ClientRegistry;
import io.junction.tenancy.AccessControl;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;

/**
 * The Kafka front-end's connection path over a real store, reached through in-VM channels: what
 * {@link KafkaFrontEnd} builds per connection (frame decoder, {@link KafkaConnection}), with a client that writes
 * frames and reads responses with kafka-clients' own classes.
 */
final class KafkaWire implements AutoCloseable {
    private static final AtomicInteger SERVERS = new AtomicInteger();
    /** Connections the server side has set up; {@link #connect} waits for its own. */
    private static final AtomicInteger ACCEPTED = new AtomicInteger();

    final MessageStore store;
    final KafkaSettings settings;
    /** The server side of every open connection. */
    final ChannelGroup connections;
    final GroupCoordinator coordinator;
    /** Where the connections list themselves. */
    final ClientRegistry clients;
    private final EventLoopGroup loops;
    private final LocalAddress address;
    private final Channel server;
    /** Whether {@link #close} closes the store (one this wire opened) or leaves it to its owner. */
    private boolean ownsStore = true;
    /** The data directory of a store this wire made itself (deleted on close); null over a caller's store. */
    private Path dir;

    private KafkaWire(final MessageStore store, final KafkaSettings settings, final EventLoopGroup loops,
                      final LocalAddress address, final Channel server, final ChannelGroup connections,
                      final GroupCoordinator coordinator, final ClientRegistry clients) {
        this.store = store;
        this.settings = settings;
        this.loops = loops;
        this.address = address;
        this.server = server;
        this.connections = connections;
        this.coordinator = coordinator;
        this.clients = clients;
    }

    static KafkaSettings settings(final int maxRequestSize) {
        return new KafkaSettings(maxRequestSize, 16, 8 << 20, true, 2, KafkaSettings.NODE_ID, 0, 64 << 20);
    }

    static KafkaWire start(final KafkaSettings settings) throws IOException, InterruptedException {
        final Path dir = Files.createTempDirectory("kafka-wire");
        final KafkaWire wire = startOn(MessageStore.open(StoreConfig.builder(dir).segmentSize(64 << 20)
                .maxMessageSize(1 << 20).flushInterval(Duration.ofMillis(50)).diskFullRatio(1.01)
                .maxDiskUsedRatio(1.01).build()), settings);
        wire.dir = dir;
        return wire;
    }

    /**
     * A front-end (as after a broker restart: nothing in memory) over a store that outlives it: closing the wire
     * leaves the store open.
     */
    static KafkaWire over(final MessageStore store, final KafkaSettings settings) throws InterruptedException {
        final KafkaWire wire = startOn(store, settings);
        wire.ownsStore = false;
        return wire;
    }

    private static KafkaWire startOn(final MessageStore store, final KafkaSettings settings)
            throws InterruptedException {
        final EventLoopGroup loops = new MultiThreadIoEventLoopGroup(2, LocalIoHandler.newFactory());
        final GroupCoordinator coordinator = new GroupCoordinator(store, settings.initialRebalanceDelayMs(),
                System::currentTimeMillis);
        final KafkaApis apis = new KafkaApis(store, settings, coordinator, AccessControl.open());
        apis.recover().join();
        final LocalAddress address = new LocalAddress("kafka-wire-" + SERVERS.incrementAndGet());
        final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        final ClientRegistry clients = new ClientRegistry();
        final Channel server = new ServerBootstrap().group(loops).channel(LocalServerChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel ch) {
                        connections.add(ch);
                        ACCEPTED.incrementAndGet();
                        KafkaFrontEnd.initPipeline(ch.pipeline(), settings, apis, "127.0.0.1", 9092, clients);
                    }
                }).bind(address).sync().channel();
        return new KafkaWire(store, settings, loops, address, server, connections, coordinator, clients);
    }

    /** A client whose server side is set up (in the connection group) when this returns. */
    Client connect() throws InterruptedException {
        final int before = ACCEPTED.get();
        final Client client = new Client();
        new Bootstrap().group(loops).channel(LocalChannel.class).handler(client.handler()).connect(address).sync();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (ACCEPTED.get() == before && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        return client;
    }

    /** One client connection. */
    static final class Client implements AutoCloseable {
        final BlockingQueue<ByteBuffer> frames = new LinkedBlockingQueue<>();
        Channel channel;
        private int correlation;

        /** The client's pipeline: response frames (size prefix removed) into {@link #frames}. */
        ChannelInitializer<Channel> handler() {
            return new ChannelInitializer<>() {
                @Override
                protected void initChannel(final Channel ch) {
                    channel = ch;
                    ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(64 << 20, 0, 4, 0, 4),
                            new SimpleChannelInboundHandler<ByteBuf>() {
                                @Override
                                protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf msg) {
                                    final ByteBuffer copy = ByteBuffer.allocate(msg.readableBytes());
                                    msg.readBytes(copy);
                                    frames.add(copy.flip());
                                }
                            });
                }
            };
        }

        /** Sends a request; returns its header (to parse the response with). */
        RequestHeader send(final ApiKeys api, final short version, final ApiMessage data) {
            final RequestHeader header = new RequestHeader(api, version, "wire-test", ++correlation);
            final ByteBuffer body = RequestUtils.serialize(header.data(), header.headerVersion(), data, version);
            writeFrame(body.remaining(), body);
            return header;
        }

        /** A frame with {@code size} as its size prefix and {@code body} after it. */
        void writeFrame(final int size, final ByteBuffer body) {
            channel.writeAndFlush(Unpooled.wrappedBuffer(Unpooled.buffer(4).writeInt(size),
                    Unpooled.wrappedBuffer(body)));
        }

        void writeRaw(final byte[] bytes) {
            channel.writeAndFlush(Unpooled.wrappedBuffer(bytes));
        }

        /** The next response frame (size prefix removed), or null after {@code timeoutMs}. */
        ByteBuffer nextFrame(final long timeoutMs) throws InterruptedException {
            return frames.poll(timeoutMs, TimeUnit.MILLISECONDS);
        }

        /** The next response, parsed for {@code header} (which also checks its correlation id). */
        AbstractResponse receive(final RequestHeader header) throws InterruptedException {
            final ByteBuffer frame = nextFrame(20_000);
            if (frame == null) {
                throw new AssertionError("no response to " + header);
            }
            return AbstractResponse.parseResponse(frame, header);
        }

        boolean awaitClosed(final long timeoutMs) {
            return channel.closeFuture().awaitUninterruptibly(timeoutMs);
        }

        @Override
        public void close() {
            channel.close().awaitUninterruptibly();
        }
    }

    @Override
    public void close() {
        server.close().awaitUninterruptibly();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        coordinator.close();
        if (ownsStore) {
            store.close();
        }
        if (dir != null) {
            deleteTree(dir);
        }
    }

    /** Deletes a test's data directory (its 64 MiB segments would otherwise stay in the temporary directory). */
    static void deleteTree(final Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
