package io.junction.grpc;

import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiators;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.junction.spi.BrokerContext;
import io.junction.spi.Endpoint;
import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.kit.HeldMessages;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The RocketMQ 5 gRPC front-end: {@code apache.rocketmq.v2.MessagingService} on {@code grpc.port} (8081), served by
 * grpc-netty-shaded (its own Netty, never the broker's). TLS and plaintext share the port by default (the 5.x
 * clients use TLS unless told otherwise), with a self-signed certificate when none is configured.
 */
public final class GrpcFrontEnd implements ProtocolFrontEnd {
    /** When the TLS context is made if no TLS client asked for it first (after the broker is normally up). */
    private static final long TLS_WARM_UP_DELAY_MS = 1500;
    /** Largest inbound gRPC message (the proxy's value: room for a 4 MiB body batch and more). */
    static final int MAX_INBOUND_MESSAGE_SIZE = 130 * 1024 * 1024;

    private Server server;
    /** Builds and writes answers once the core completed a call (see GrpcMessagingService). */
    private ExecutorService answers;
    private BrokerContext context;
    private TransactionRecovery recovery;
    private HeldMessages<String> held;

    @Override
    public String name() {
        return GrpcSettings.NAME;
    }

    @Override
    public List<ConfigKey> configKeys() {
        return GrpcSettings.keys();
    }

    @Override
    public CompletableFuture<List<Endpoint>> start(final BrokerContext ctx) {
        try {
            this.context = ctx;
            final GrpcSettings settings = GrpcSettings.from(ctx.config());
            final int port = ctx.config().port();
            final AtomicInteger threads = new AtomicInteger();
            answers = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
                final Thread t = new Thread(r, "grpc-answers-" + threads.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            final String tls = ctx.config().string("tls");
            final TlsContextSource contexts = "DISABLED".equals(tls) ? null : tlsContexts(ctx);
            final TransportChannels transports = new TransportChannels(contexts == null
                    ? InternalProtocolNegotiators.serverPlaintext()
                    : new OptionalTlsNegotiator(contexts, !"REQUIRED".equals(tls)));
            final ClientSessions sessions = new ClientSessions(ctx.clients(), transports::close);
            final boolean secured = ctx.accessControl().enabled();
            final GrpcMessagingService service = new GrpcMessagingService(ctx.messaging(), settings, sessions,
                    ctx.advertisedHost(), port, answers, secured);
            held = service.held();
            held.start(ctx.eventLoops().worker());
            recovery = new TransactionRecovery(sessions);
            ctx.messaging().addTransactionChecker(recovery);
            final NettyServerBuilder builder = NettyServerBuilder.forAddress(
                    new InetSocketAddress(ctx.bindAddress(), port));
            builder.protocolNegotiator(transports);
            if (contexts != null) {
                // Off the start-up path, but ready before most clients come: set TLS up a moment after start.
                CompletableFuture.delayedExecutor(TLS_WARM_UP_DELAY_MS, TimeUnit.MILLISECONDS).execute(contexts::get);
            }
            if (secured) {
                builder.addTransportFilter(new ConnectionAuth.Installer(ctx.accessControl()));
            }
            server = builder
                    // Calls start on the connection's event loop: the handlers only start asynchronous work of the
                    // core (like every other front-end's), and a hand-over to a pool per call cost more CPU per
                    // message than the handler itself. Answers are built and written on the answers pool, not on
                    // the store thread that completed the work.
                    .directExecutor()
                    .maxInboundMessageSize(MAX_INBOUND_MESSAGE_SIZE)
                    .permitKeepAliveTime(10, TimeUnit.SECONDS)
                    .permitKeepAliveWithoutCalls(true)
                    .maxConnectionIdle(120, TimeUnit.SECONDS)
                    .addTransportFilter(new ConnectionTracker(ctx.connections()))
                    // the last interceptor runs first: the client id is known before the call is authenticated
                    .addService(secured
                            ? ServerInterceptors.intercept(service, new CallAuthenticator(ctx.accessControl()),
                                    new ClientMetadata())
                            : ServerInterceptors.intercept(service, new ClientMetadata()))
                    .build()
                    .start();
            return CompletableFuture.completedFuture(List.of(Endpoint.tcp(GrpcSettings.NAME, ctx.advertisedHost(),
                    server.getPort())));
        } catch (final IOException e) {
            return CompletableFuture.failedFuture(new IOException("gRPC cannot listen on " + ctx.bindAddress() + ":"
                    + ctx.config().port() + ": " + e.getMessage(), e));
        } catch (final RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The configured certificate and key, or the self-signed certificate shared by every TLS listener. */
    private static TlsContextSource tlsContexts(final BrokerContext ctx) throws IOException {
        if (ctx.config().isSet("tls-cert-file")) {
            if (!ctx.config().isSet("tls-key-file")) {
                throw new IllegalArgumentException("grpc.tls-cert-file is set but grpc.tls-key-file is not");
            }
            return TlsContextSource.configured(new File(ctx.config().string("tls-cert-file")),
                    new File(ctx.config().string("tls-key-file")));
        }
        return TlsContextSource.selfSigned(ctx.dataDir().resolve("tls"), ctx.advertisedHost());
    }

    @Override
    public CompletableFuture<Void> stop() {
        return CompletableFuture.runAsync(() -> {
            if (context != null && recovery != null) {
                context.messaging().removeTransactionChecker(recovery);
            }
            if (server != null) {
                server.shutdown();
                try {
                    if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
                        server.shutdownNow();
                        server.awaitTermination(5, TimeUnit.SECONDS);
                    }
                } catch (InterruptedException e) {
                    server.shutdownNow();
                    Thread.currentThread().interrupt();
                }
            }
            if (answers != null) {
                answers.shutdownNow();
            }
            if (held != null) {
                held.close();
            }
        });
    }
}
