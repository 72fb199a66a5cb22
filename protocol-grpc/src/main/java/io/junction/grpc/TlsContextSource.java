package io.junction.grpc;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.junction.spi.tls.SelfSignedCertificate;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the listener's {@link SslContext} comes from. A configured certificate is loaded at start, so a bad file stops
 * the broker with a clear error. The self-signed one is loaded (or made, and kept in the data directory) on a thread of
 * its own, when the first TLS client arrives or a moment after start, whichever comes first: setting up JSSE costs
 * about half a second of class loading, which would otherwise be most of the broker's start-up time.
 */
final class TlsContextSource {
    private static final Logger LOG = LoggerFactory.getLogger(TlsContextSource.class);

    private final Path selfSignedDirectory;
    private final String commonName;
    private final AtomicReference<CompletableFuture<SslContext>> context = new AtomicReference<>();

    private TlsContextSource(final Path selfSignedDirectory, final String commonName,
                             final CompletableFuture<SslContext> ready) {
        this.selfSignedDirectory = selfSignedDirectory;
        this.commonName = commonName;
        this.context.set(ready);
    }

    /** The configured certificate chain and PKCS#8 key (PEM), loaded now. */
    static TlsContextSource configured(final File certificateChain, final File privateKey) throws IOException {
        final SslContext ctx;
        try {
            ctx = GrpcSslContexts.configure(SslContextBuilder.forServer(certificateChain, privateKey)).build();
        } catch (IllegalArgumentException e) {
            throw new IOException("cannot use " + certificateChain + " / " + privateKey + ": " + e.getMessage(), e);
        }
        return new TlsContextSource(null, null, CompletableFuture.completedFuture(ctx));
    }

    /** A self-signed certificate kept in {@code directory}, for {@code commonName}, set up on first use. */
    static TlsContextSource selfSigned(final Path directory, final String commonName) {
        return new TlsContextSource(directory, commonName, null);
    }

    /** The context, possibly still being made; never completes on the calling thread's stack if it is not ready. */
    CompletableFuture<SslContext> get() {
        final CompletableFuture<SslContext> existing = context.get();
        if (existing != null) {
            return existing;
        }
        final CompletableFuture<SslContext> made = new CompletableFuture<>();
        if (!context.compareAndSet(null, made)) {
            return context.get();
        }
        final Thread maker = new Thread(() -> {
            try {
                final SelfSignedCertificate cert = SelfSignedCertificate.loadOrCreate(selfSignedDirectory, commonName);
                made.complete(GrpcSslContexts.configure(
                        SslContextBuilder.forServer(cert.privateKey(), cert.certificate())).build());
                LOG.info("gRPC TLS uses the self-signed certificate in {}", selfSignedDirectory);
            } catch (IOException | RuntimeException e) {
                LOG.error("gRPC TLS is unavailable: {}", e.getMessage());
                made.completeExceptionally(e instanceof IOException io ? new UncheckedIOException(io) : e);
            }
        }, "grpc-tls-setup");
        maker.setDaemon(true);
        maker.start();
        return made;
    }
}
