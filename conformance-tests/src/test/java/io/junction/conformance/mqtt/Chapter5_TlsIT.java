package io.junction.conformance.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import io.junction.conformance.support.BrokerProcess;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.FreePorts;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MQTT 5.0 chapter 5.4.9 (TLS): MQTT inside TLS on its own port ({@code mqtt.tls-enabled}, {@code mqtt.tls-port}),
 * clients verifying the broker's certificate — the self-signed one kept in {@code data/tls/}, or a configured one —
 * and mutual TLS with client certificates checked against {@code mqtt.tls-trust-file}.
 */
class Chapter5_TlsIT {
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void shouldCarryMqttOverTlsWithTheKeptSelfSignedCertificate() throws Exception {
        final int tlsPort = FreePorts.next();
        try (RunningBroker broker = RunningBroker.builder().dataDir(dir.resolve("data"))
                .set("mqtt.tls-enabled", "true").set("mqtt.tls-port", Integer.toString(tlsPort)).start()) {
            assertThat(broker.process().stdout()).contains("mqtts=").contains(":" + tlsPort);
            // The client trusts exactly the certificate the broker keeps in its data directory.
            final TrustManagerFactory trust = trusting(pemCertificate(dir.resolve("data/tls/self-signed.crt")));
            final int plainPort = Integer.parseInt(broker.setting("mqtt.port"));

            final Mqtt5BlockingClient plainSub = MqttClient.builder().useMqttVersion5().identifier("plain-sub")
                    .serverHost("127.0.0.1").serverPort(plainPort).buildBlocking();
            plainSub.connect();
            final Mqtt5BlockingClient.Mqtt5Publishes received = Clients.publishes(plainSub);
            plainSub.subscribeWith().topicFilter("secure/#").qos(MqttQos.AT_LEAST_ONCE).send();

            final Mqtt5BlockingClient hive = MqttClient.builder().useMqttVersion5().identifier("hive-tls")
                    .serverHost("127.0.0.1").serverPort(tlsPort)
                    .sslConfig().trustManagerFactory(trust).hostnameVerifier((host, session) -> true).applySslConfig()
                    .buildBlocking();
            hive.connect();
            hive.publishWith().topic("secure/hive").qos(MqttQos.AT_LEAST_ONCE).payload(Clients.bytes("from hive"))
                    .send();

            final SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(null, trust.getTrustManagers(), null);
            final org.eclipse.paho.client.mqttv3.MqttClient paho = new org.eclipse.paho.client.mqttv3.MqttClient(
                    "ssl://127.0.0.1:" + tlsPort, "paho-tls", new MemoryPersistence());
            final MqttConnectOptions options = new MqttConnectOptions();
            options.setSocketFactory(ssl.getSocketFactory());
            options.setHttpsHostnameVerificationEnabled(false);
            paho.connect(options);
            final BlockingQueue<String> pahoGot = new LinkedBlockingQueue<>();
            paho.subscribe("secure/#", 1, (topic, message) ->
                    pahoGot.add(topic + "=" + new String(message.getPayload(), StandardCharsets.UTF_8)));
            paho.publish("secure/paho", "from paho".getBytes(StandardCharsets.UTF_8), 1, false);

            assertThat(Clients.texts(Clients.receive(received, 2))).containsExactlyInAnyOrder("from hive",
                    "from paho");
            assertThat(pahoGot.poll(10, TimeUnit.SECONDS)).isEqualTo("secure/paho=from paho");
            paho.disconnect();
            paho.close();
            hive.disconnect();
            plainSub.disconnect();

            // Plain MQTT on the TLS port is not MQTT to it: the connection fails instead of hanging.
            final Mqtt5BlockingClient confused = MqttClient.builder().useMqttVersion5().identifier("confused")
                    .serverHost("127.0.0.1").serverPort(tlsPort).buildBlocking();
            assertThatThrownBy(confused::connect).isInstanceOf(RuntimeException.class);
        }
    }

    @Test
    void shouldRequireAClientCertificateSignedByTheTrustFile() throws Exception {
        // Client identity: a self-signed certificate made with the JDK's keytool, which doubles as its own CA.
        final Path clientStore = dir.resolve("client.p12");
        final Path clientCert = dir.resolve("client.crt");
        keytool("-genkeypair", "-alias", "device", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=device-1",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", clientStore.toString(),
                "-storepass", "secret", "-keypass", "secret");
        keytool("-exportcert", "-rfc", "-alias", "device", "-keystore", clientStore.toString(), "-storepass", "secret",
                "-file", clientCert.toString());

        final int tlsPort = FreePorts.next();
        try (RunningBroker broker = RunningBroker.builder().dataDir(dir.resolve("data"))
                .set("mqtt.tls-enabled", "true").set("mqtt.tls-port", Integer.toString(tlsPort))
                .set("mqtt.tls-client-auth", "REQUIRE").set("mqtt.tls-trust-file", clientCert.toString()).start()) {
            final TrustManagerFactory trust = trusting(pemCertificate(dir.resolve("data/tls/self-signed.crt")));
            final KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(clientStore)) {
                keys.load(in, "secret".toCharArray());
            }
            final KeyManagerFactory identity = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            identity.init(keys, "secret".toCharArray());

            final Mqtt5BlockingClient withCert = MqttClient.builder().useMqttVersion5().identifier("with-cert")
                    .serverHost("127.0.0.1").serverPort(tlsPort)
                    .sslConfig().trustManagerFactory(trust).keyManagerFactory(identity)
                    .hostnameVerifier((host, session) -> true).applySslConfig()
                    .buildBlocking();
            assertThat(withCert.connect().getReasonCode().isError()).isFalse();
            withCert.disconnect();

            final Mqtt5BlockingClient withoutCert = MqttClient.builder().useMqttVersion5().identifier("no-cert")
                    .serverHost("127.0.0.1").serverPort(tlsPort)
                    .sslConfig().trustManagerFactory(trust).hostnameVerifier((host, session) -> true).applySslConfig()
                    .buildBlocking();
            assertThatThrownBy(withoutCert::connect).isInstanceOf(RuntimeException.class);
        }
    }

    @Test
    void shouldRefuseToStartWhenTheCertificateFileIsUnusable() throws Exception {
        final Path bogus = Files.writeString(dir.resolve("bogus.crt"), "not a certificate");
        try (BrokerProcess broker = BrokerProcess.builder(dir.resolve("data"))
                .set("mqtt.tls-enabled", "true").set("mqtt.tls-port", Integer.toString(FreePorts.next()))
                .set("mqtt.tls-cert-file", bogus.toString()).set("mqtt.tls-key-file", bogus.toString()).start()) {
            assertThat(broker.awaitExit(DEADLINE)).isNotZero();
            assertThat(broker.stderr()).contains("MQTT TLS").contains(bogus.toString());
        }
    }

    private static Certificate pemCertificate(final Path file) throws Exception {
        return CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(Files.readAllBytes(file)));
    }

    private static TrustManagerFactory trusting(final Certificate certificate) throws Exception {
        final KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        store.setCertificateEntry("junction", certificate);
        final TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        return factory;
    }

    private static void keytool(final String... args) throws Exception {
        final Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        final List<String> command = new java.util.ArrayList<>(List.of(keytool.toString()));
        command.addAll(List.of(args));
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("keytool finished").isTrue();
        assertThat(p.exitValue()).as("keytool " + String.join(" ", args) + ": " + output).isZero();
    }
}
