package io.junction.spi.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The one harness of the front-ends' fuzz targets: a front-end's per-connection pipeline served on in-VM channels
 * (Netty's local transport stands in for the socket), behind the connection counter as on a real listener, with the
 * checks every target makes after every input.
 *
 * <p>A target creates the harness once (its event loops exist before the pipeline, for front-ends that need them),
 * {@link #serve}s its pipeline, and per input {@link #connect}s a client, writes the input, and checks:
 * <ul>
 *   <li>the frame decoder holds a bounded number of bytes ({@link Connection#buffered}): no unbounded buffer;</li>
 *   <li>input that breaks the protocol's framing makes the server close the connection on its own
 *       ({@link Connection#serverClosed});</li>
 *   <li>the server side closes once the client left ({@link Connection#close}): no hang;</li>
 *   <li>a fresh client is still served (the target's own exchange, on {@link #connect});</li>
 *   <li>{@link #assertClean}: the connection gauge is back at zero, and nothing logged a warning or error with a stack
 *       trace (an exception nobody handled) or a Netty leak ({@link ProblemLog}).</li>
 * </ul>
 */
public final class LocalChannelHarness implements AutoCloseable {
    /** How long any one step may take before the input counts as a hang. */
    public static final long WAIT_SECONDS = 30;
    private static final AtomicInteger SERVERS = new AtomicInteger();
    private static final Method INTERNAL_BUFFER;

    static {
        try {
            // A decoder's cumulation is only visible to subclasses; the harness reads it to check the bound.
            INTERNAL_BUFFER = ByteToMessageDecoder.class.getDeclaredMethod("internalBuffer");
            INTERNAL_BUFFER.setAccessible(true);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final EventLoopGroup loops = new MultiThreadIoEventLoopGroup(2, LocalIoHandler.newFactory());
    private final LocalAddress address;
    private final ConnectionCounter connections;
    private final ProblemLog problems = ProblemLog.attach();
    private final BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
    private Channel server;

    /** @param protocol names the in-VM address and the connection gauge */
    public LocalChannelHarness(final String protocol) {
        this.address = new LocalAddress(protocol + "-fuzz-" + SERVERS.incrementAndGet());
        this.connections = new ConnectionCounter(new SimpleMeterRegistry(), protocol);
    }

    /** The event loops connections run on (two, as a small broker has), for front-end state that needs them. */
    public EventLoopGroup loops() {
        return loops;
    }

    /**
     * Accepts connections: each gets the connection counter, then what {@code pipeline} adds (the front-end's own
     * handlers, as its listener adds them).
     *
     * @param waterMark the front-end's per-connection write water marks, or null for Netty's defaults
     */
    public LocalChannelHarness serve(final WriteBufferWaterMark waterMark, final Consumer<Channel> pipeline)
            throws InterruptedException {
        final ServerBootstrap bootstrap = new ServerBootstrap().group(loops).channel(LocalServerChannel.class);
        if (waterMark != null) {
            bootstrap.childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark);
        }
        server = bootstrap.childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(final Channel ch) {
                ch.pipeline().addLast("connections", connections.handler());
                pipeline.accept(ch);
                accepted.add(ch);
            }
        }).bind(address).sync().channel();
        return this;
    }

    /** A client that drops whatever the server answers. */
    public Connection connect() throws InterruptedException {
        return connect(new Discard());
    }

    /** A client with its own handler (or initializer), and the server side of its connection. */
    public Connection connect(final ChannelHandler client) throws InterruptedException {
        final Channel ch = new Bootstrap().group(loops).channel(LocalChannel.class).handler(client).connect(address)
                .sync().channel();
        final Channel serverSide = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        if (serverSide == null) {
            ch.close().sync();
        }
        assertThat(serverSide).as("the server accepted the connection").isNotNull();
        return new Connection(ch, serverSide);
    }

    /**
     * After an input: every connection is counted closed again, and nothing logged an unhandled error or a leak (what
     * was logged is forgotten either way, so one problem fails one input).
     */
    public void assertClean() {
        try {
            assertThat(eventually(() -> connections.current() == 0))
                    .as("open connections counted after all closed: %d", connections.current()).isTrue();
        } finally {
            problems.assertNone();
        }
    }

    /** Polls {@code condition} until it holds or {@link #WAIT_SECONDS} passed; whether it held. */
    public static boolean eventually(final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            LockSupport.parkNanos(50_000);
        }
        return true;
    }

    @Override
    public void close() {
        if (server != null) {
            server.close().awaitUninterruptibly();
        }
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** One client connection and its server side. */
    public static final class Connection implements AutoCloseable {
        private final Channel client;
        private final Channel server;

        private Connection(final Channel client, final Channel server) {
            this.client = client;
            this.server = server;
        }

        public Channel client() {
            return client;
        }

        public Channel server() {
            return server;
        }

        /**
         * Writes the byte arrays as one write and waits until it went out; the server may have closed the connection
         * already (then the write fails, which is an answer too).
         */
        public void send(final byte[]... chunks) {
            client.writeAndFlush(Unpooled.wrappedBuffer(chunks)).awaitUninterruptibly();
        }

        /**
         * Bytes held by the server's decoder named {@code decoder} once the server read everything sent so far (asked
         * on the server's event loop, behind the reads); 0 once the connection or the decoder is gone.
         */
        public int buffered(final String decoder) throws InterruptedException, ExecutionException, TimeoutException {
            return server.eventLoop().submit(() -> {
                final ChannelHandler handler = server.pipeline().get(decoder);
                if (!(handler instanceof ByteToMessageDecoder) || !server.isOpen()) {
                    return 0; // a failing decoder keeps what followed the bad frame until the closed channel drops it
                }
                return ((ByteBuf) INTERNAL_BUFFER.invoke(handler)).readableBytes();
            }).get(WAIT_SECONDS, TimeUnit.SECONDS);
        }

        /** Whether the server closes the connection within {@link #WAIT_SECONDS} (with the client still there). */
        public boolean serverClosed() throws InterruptedException {
            return server.closeFuture().await(WAIT_SECONDS, TimeUnit.SECONDS);
        }

        /** Closes the client and checks that the server side follows (no connection left hanging). */
        @Override
        public void close() throws InterruptedException {
            client.close().sync();
            assertThat(server.closeFuture().await(WAIT_SECONDS, TimeUnit.SECONDS))
                    .as("the server side closes once the client left").isTrue();
        }
    }

    /** The fuzzing client: answers are not checked. */
    private static final class Discard extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
            ReferenceCountUtil.release(msg);
        }
    }
}
