package io.junction.conformance.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.junction.conformance.support.FreePorts;
import io.junction.conformance.support.RunningBroker;
import jakarta.jms.Connection;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.junit.jupiter.api.Test;

/**
 * AMQP over TLS ({@code amqp.tls-enabled}): Qpid JMS connects with {@code amqps://} to the TLS port and sends and
 * receives; the plain port keeps working. With a configured certificate (made with the openssl command; that case is
 * skipped without it) and with the self-signed one the broker keeps in its data directory.
 */
class AmqpTlsIT {

    @Test
    void shouldServeAmqpOverTls() throws Exception {
        final Path dir = Files.createTempDirectory("junction-amqp-tls");
        final Path cert = dir.resolve("cert.pem");
        final Path key = dir.resolve("key.pem");
        final Process openssl;
        try {
            openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-keyout", key.toString(), "-out", cert.toString()).redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            assumeTrue(false, "openssl is not installed");
            return;
        }
        assumeTrue(openssl.waitFor(30, TimeUnit.SECONDS) && openssl.exitValue() == 0, "openssl failed");
        final String tlsPort = Integer.toString(FreePorts.next());
        try (RunningBroker broker = RunningBroker.start(Map.of("amqp.tls-enabled", "true", "amqp.tls-port", tlsPort,
                "amqp.tls-cert-file", cert.toString(), "amqp.tls-key-file", key.toString()))) {
            final JmsConnectionFactory tls = new JmsConnectionFactory("amqps://127.0.0.1:" + tlsPort
                    + "?transport.trustAll=true&transport.verifyHost=false");
            try (Connection c = tls.createConnection(); Connection plain = Jms.connect(broker)) {
                c.start();
                final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                final Queue q = s.createQueue("secure");
                s.createProducer(q).send(s.createTextMessage("over tls"));
                final Session ps = plain.createSession(false, Session.AUTO_ACKNOWLEDGE);
                final TextMessage m = (TextMessage) ps.createConsumer(ps.createQueue("secure")).receive(10_000);
                assertThat(m.getText()).isEqualTo("over tls");
            }
            assertThat(broker.process().stdout()).contains("amqps=");
        }
    }

    @Test
    void shouldServeAmqpOverTlsWithTheSelfSignedCertificate() throws Exception {
        final String tlsPort = Integer.toString(FreePorts.next());
        try (RunningBroker broker = RunningBroker.start(Map.of("amqp.tls-enabled", "true",
                "amqp.tls-port", tlsPort))) {
            final JmsConnectionFactory tls = new JmsConnectionFactory("amqps://127.0.0.1:" + tlsPort
                    + "?transport.trustAll=true&transport.verifyHost=false");
            try (Connection c = tls.createConnection()) {
                c.start();
                final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                final Queue q = s.createQueue("secure-self-signed");
                s.createProducer(q).send(s.createTextMessage("self-signed"));
                final TextMessage m = (TextMessage) s.createConsumer(q).receive(10_000);
                assertThat(m.getText()).isEqualTo("self-signed");
                assertThat(c.getClientID()).isNotNull();
            }
            assertThat(broker.process().stdout()).contains("amqps=").contains(":" + tlsPort);
        }
    }
}
