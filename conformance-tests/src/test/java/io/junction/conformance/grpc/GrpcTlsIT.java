package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.body;
import static io.junction.conformance.grpc.GrpcClients.unique;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.conformance.support.RunningBroker;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS and plaintext on the same gRPC port: the 5.x client's default (TLS, trusting any certificate) works unchanged
 * against the self-signed certificate generated at first start (kept in the data directory, the same after a
 * restart), and a plaintext client works on the same port.
 */
class GrpcTlsIT {
    @TempDir
    Path dir;

    @Test
    void shouldServeTlsAndPlaintextClientsOnTheSamePort() throws Exception {
        try (RunningBroker broker = RunningBroker.builder().dataDir(dir.resolve("data")).start();
             GrpcClients tls = new GrpcClients(broker, true);
             GrpcClients plain = new GrpcClients(broker, false)) {
            final String topic = unique("grpc-tls");
            final Producer producer = tls.producer(topic);
            producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("over tls")).build());
            final List<MessageView> got = GrpcClients.drain(plain.simpleConsumer(unique("grpc-g"), topic), 1,
                    Duration.ofSeconds(20));
            assertThat(got).extracting(GrpcClients::body).containsExactly("over tls");

            plain.producer(topic).send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("plain")).build());
            final List<MessageView> back = GrpcClients.drain(tls.simpleConsumer(unique("grpc-g"), topic), 2,
                    Duration.ofSeconds(20));
            assertThat(back).extracting(GrpcClients::body).containsExactlyInAnyOrder("over tls", "plain");
        }
    }

    @Test
    void shouldRefusePlaintextWhenTlsIsRequired() throws Exception {
        try (RunningBroker broker = RunningBroker.builder().dataDir(dir.resolve("data")).set("grpc.tls", "REQUIRED")
                .start();
             GrpcClients tls = new GrpcClients(broker, true);
             GrpcClients plain = new GrpcClients(broker, false)) {
            final String topic = unique("grpc-tls-only");
            tls.producer(topic).send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("ok")).build());
            assertThatThrownBy(() -> plain.producer(topic)).isInstanceOf(Exception.class);
            assertThat(body(GrpcClients.drain(tls.simpleConsumer(unique("grpc-g"), topic), 1,
                    Duration.ofSeconds(20)).get(0))).isEqualTo("ok");
        }
    }

    @Test
    void shouldPresentTheSameSelfSignedCertificateAfterARestart() throws Exception {
        final Path data = dir.resolve("data");
        final Certificate first;
        try (RunningBroker broker = RunningBroker.builder().dataDir(data).start()) {
            first = serverCertificate(Integer.parseInt(broker.setting("grpc.port")));
        }
        final Path kept = data.resolve("tls").resolve("self-signed.crt");
        assertThat(first).isEqualTo(fromPem(kept));
        try (RunningBroker broker = RunningBroker.builder().dataDir(data).start()) {
            assertThat(serverCertificate(Integer.parseInt(broker.setting("grpc.port")))).isEqualTo(first);
        }
    }

    /** The certificate the server presents in a TLS handshake (h2 offered, nothing verified). */
    private static Certificate serverCertificate(final int port) throws Exception {
        final SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(final X509Certificate[] chain, final String authType) {
            }

            @Override
            public void checkServerTrusted(final X509Certificate[] chain, final String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, new SecureRandom());
        try (SSLSocket socket = (SSLSocket) ssl.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            final SSLParameters params = socket.getSSLParameters();
            params.setApplicationProtocols(new String[] {"h2"});
            socket.setSSLParameters(params);
            socket.startHandshake();
            return socket.getSession().getPeerCertificates()[0];
        }
    }

    private static Certificate fromPem(final Path file) throws Exception {
        final String pem = Files.readString(file);
        final String base64 = pem.replace("-----BEGIN CERTIFICATE-----", "").replace("-----END CERTIFICATE-----", "");
        return CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(Base64.getMimeDecoder().decode(base64)));
    }
}
