package io.junction.spi.tls;

import io.junction.spi.BrokerContext;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.config.ValueKind;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLException;

/**
 * A second, TLS listener (MQTT 8883, AMQP 5671, HTTP 8443, …): the keys every such front-end declares under its
 * prefix, and the server {@link SslContext} they describe. TLS is off unless {@code <prefix>.tls-enabled}; with no
 * certificate configured it uses the self-signed development certificate kept in {@code <data-dir>/tls/}, shared by
 * every listener. {@code <prefix>.tls-client-auth} asks clients for certificates signed by the CAs in
 * {@code <prefix>.tls-trust-file} (mutual TLS).
 */
public final class ServerTls {
    private ServerTls() {
    }

    /** The keys {@code <prefix>.tls-enabled, tls-port, tls-cert-file, tls-key-file, tls-client-auth, tls-trust-file}. */
    public static List<ConfigKey> keys(final String prefix, final int defaultPort) {
        final String label = prefix.toUpperCase(Locale.ROOT);
        return List.of(
                ConfigKey.of(prefix + ".tls-enabled", ValueKind.BOOLEAN, "false",
                        "Open the " + label + " TLS listener on " + prefix + ".tls-port."),
                ConfigKey.of(prefix + ".tls-port", ValueKind.PORT, Integer.toString(defaultPort),
                        label + " over TLS listens here when " + prefix + ".tls-enabled is true."),
                ConfigKey.of(prefix + ".tls-cert-file", ValueKind.STRING, "",
                        "PEM certificate chain for " + label + " TLS; when unset, the self-signed certificate kept "
                                + "in <data-dir>/tls/."),
                ConfigKey.of(prefix + ".tls-key-file", ValueKind.STRING, "",
                        "PEM (PKCS#8) private key matching " + prefix + ".tls-cert-file."),
                ConfigKey.choice(prefix + ".tls-client-auth", "NONE",
                        "Client certificates on the " + label + " TLS listener: NONE, OPTIONAL or REQUIRE (checked "
                                + "against " + prefix + ".tls-trust-file).", "NONE", "OPTIONAL", "REQUIRE"),
                ConfigKey.of(prefix + ".tls-trust-file", ValueKind.STRING, "",
                        "PEM CA certificates that sign acceptable " + label + " client certificates."));
    }

    /** Whether this front-end's TLS listener is switched on. */
    public static boolean enabled(final FrontEndConfig config) {
        return config.bool("tls-enabled");
    }

    /**
     * The server context the keys describe.
     *
     * @throws IOException naming the file when a certificate, key or trust file cannot be used
     * @throws IllegalArgumentException when the keys contradict each other (a certificate without its key, client
     *                                  certificates required with nothing to check them against)
     */
    public static SslContext serverContext(final BrokerContext context) throws IOException {
        return serverContext(context.config(), context.dataDir(), context.advertisedHost());
    }

    /**
     * The server context {@code config}'s TLS keys describe; the self-signed certificate, when needed, is kept in
     * {@code <dataDir>/tls/} and names {@code advertisedHost}.
     *
     * @throws IOException              naming the file when a certificate, key or trust file cannot be used
     * @throws IllegalArgumentException when the keys contradict each other
     */
    public static SslContext serverContext(final FrontEndConfig config, final Path dataDir,
                                           final String advertisedHost) throws IOException {
        final String prefix = config.prefix();
        final SslContextBuilder builder;
        if (config.isSet("tls-cert-file") != config.isSet("tls-key-file")) {
            throw new IllegalArgumentException(prefix + ".tls-cert-file and " + prefix
                    + ".tls-key-file are set together or not at all");
        }
        if (config.isSet("tls-cert-file")) {
            final File cert = new File(config.string("tls-cert-file"));
            final File key = new File(config.string("tls-key-file"));
            try {
                builder = SslContextBuilder.forServer(cert, key);
            } catch (IllegalArgumentException e) {
                throw new IOException("cannot use " + cert + " / " + key + ": " + e.getMessage(), e);
            }
        } else {
            final SelfSignedCertificate self = SelfSignedCertificate.loadOrCreate(dataDir.resolve("tls"),
                    advertisedHost);
            builder = SslContextBuilder.forServer(self.privateKey(), self.certificate());
        }
        final ClientAuth clientAuth = ClientAuth.valueOf(config.string("tls-client-auth"));
        if (clientAuth != ClientAuth.NONE) {
            if (!config.isSet("tls-trust-file")) {
                throw new IllegalArgumentException(prefix + ".tls-client-auth=" + clientAuth + " needs "
                        + prefix + ".tls-trust-file");
            }
            final File trust = new File(config.string("tls-trust-file"));
            try {
                builder.trustManager(trust);
            } catch (IllegalArgumentException e) {
                throw new IOException("cannot use " + trust + ": " + e.getMessage(), e);
            }
        }
        try {
            return builder.clientAuth(clientAuth).build();
        } catch (SSLException e) {
            throw new IOException(prefix + " TLS: " + e.getMessage(), e);
        }
    }
}
