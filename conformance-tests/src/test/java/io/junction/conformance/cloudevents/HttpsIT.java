package io.junction.conformance.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.conformance.support.FreePorts;
import io.junction.conformance.support.RunningBroker;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTPS ({@code http.tls-enabled}): the shared HTTP routes — CloudEvents ingress and pull subscriptions, health —
 * served inside TLS on {@code http.tls-port} with the self-signed certificate the broker keeps in its data directory,
 * which a client that trusts exactly that certificate verifies (host name included). Plain HTTP keeps working on its
 * own port; plain HTTP to the TLS port gets no answer.
 */
class HttpsIT {
    @TempDir
    Path dir;

    @Test
    void shouldServeCloudEventsOverHttpsWithTheSelfSignedCertificate() throws Exception {
        final String tlsPort = Integer.toString(FreePorts.next());
        try (RunningBroker broker = RunningBroker.builder().dataDir(dir.resolve("data"))
                .set("http.tls-enabled", "true").set("http.tls-port", tlsPort).set("broker.host", "localhost")
                .start()) {
            final HttpClient https = HttpClient.newBuilder().sslContext(trusting(
                    dir.resolve("data").resolve("tls").resolve("self-signed.crt"))).build();
            final String base = "https://localhost:" + tlsPort;

            assertThat(https.send(HttpRequest.newBuilder(URI.create(base + "/health")).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            final HttpResponse<String> sub = https.send(HttpRequest.newBuilder(URI.create(base
                    + "/subscriptions/secure-pull")).PUT(HttpRequest.BodyPublishers.ofString(
                    "{\"topic\":\"secure\"}")).header("content-type", "application/json").build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(sub.statusCode()).isBetween(200, 201);
            final HttpResponse<String> posted = https.send(HttpRequest.newBuilder(URI.create(base + "/topics/secure"))
                    .header("ce-specversion", "1.0").header("ce-id", "tls-1").header("ce-source", "/https-it")
                    .header("ce-type", "test.tls").header("content-type", "text/plain")
                    .POST(HttpRequest.BodyPublishers.ofString("over tls")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(posted.statusCode()).isEqualTo(202);

            final HttpResponse<String> received = https.send(HttpRequest.newBuilder(URI.create(base
                    + "/subscriptions/secure-pull/receive?max=1&waitSeconds=10")).POST(
                    HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(received.statusCode()).isEqualTo(200);
            assertThat(received.body()).contains("\"id\":\"tls-1\"").contains("over tls");

            // The plain listener still answers; plain HTTP spoken to the TLS port does not get an HTTP answer.
            assertThat(broker.get("/health").statusCode()).isEqualTo(200);
            final HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            assertThatThrownBy(() -> plain.send(HttpRequest.newBuilder(URI.create("http://localhost:" + tlsPort
                    + "/health")).timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(IOException.class);
            assertThat(broker.process().stdout()).contains("https://localhost:" + tlsPort);
        }
    }

    /** A TLS context that trusts exactly the certificate in {@code pem}. */
    private static SSLContext trusting(final Path pem) throws Exception {
        final KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(pem)) {
            trust.setCertificateEntry("broker", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        final TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        final SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return ssl;
    }
}
