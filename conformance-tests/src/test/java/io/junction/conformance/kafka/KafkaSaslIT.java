package io.junction.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.conformance.support.DataDirSeed;
import io.junction.conformance.support.FreePorts;
import io.junction.conformance.support.RunningBroker;
import io.junction.tenancy.AclRule;
import io.junction.tenancy.SecretCipher;
import io.junction.tenancy.UserDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SASL/PLAIN against the broker's users (the same directory every protocol authenticates against), over plaintext
 * and inside TLS, with each user's namespace and ACL applied per request:
 * <ul>
 * <li>{@code alice} and {@code bob}: tenants {@code acme} and {@code globex}, every right in their namespace;</li>
 * <li>{@code dave}: tenant {@code acme}, may subscribe to topics and use groups, not publish nor administer;</li>
 * <li>{@code erin}: tenant {@code acme}, may publish and subscribe to topics but use no group.</li>
 * </ul>
 */
class KafkaSaslIT {
    private static final String KEY = "kafka sasl it key";
    private static RunningBroker broker;
    private static int tlsPort;

    @BeforeAll
    static void start() {
        tlsPort = FreePorts.next();
        broker = RunningBroker.builder().seed(new Cast()).set("security.enabled", "true")
                .set("security.secret-key", KEY).set("kafka.tls-enabled", "true")
                .set("kafka.tls-port", Integer.toString(tlsPort)).start();
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    /** The users above, written into the broker's user directory before it starts. */
    private static final class Cast implements DataDirSeed {
        @Override
        public void write(final Path data) {
            final UserDirectory users = UserDirectory.open(data.resolve("security/users.json"),
                    new SecretCipher(KEY));
            final List<AclRule> everything = List.of(AclRule.parse("*", List.of("ALL"), "ALLOW"));
            for (String[] u : new String[][] {{"alice", "acme"}, {"bob", "globex"}}) {
                users.putUser(u[0], u[1], false, true, u[0] + "-pw", u[0] + "-secret");
                users.setRules(u[0], everything);
            }
            users.putUser("dave", "acme", false, true, "dave-pw", "dave-secret");
            users.setRules("dave", List.of(AclRule.parse("Topic:*", List.of("SUB"), "ALLOW"),
                    AclRule.parse("Group:*", List.of("ALL"), "ALLOW")));
            users.putUser("erin", "acme", false, true, "erin-pw", "erin-secret");
            users.setRules("erin", List.of(AclRule.parse("Topic:*", List.of("PUB", "SUB"), "ALLOW")));
        }
    }

    private static Map<String, Object> sasl(final String user, final String password) {
        final Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        c.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        c.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"" + user + "\" password=\"" + password + "\";");
        c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        return c;
    }

    private static Map<String, Object> saslSsl(final String user, final String password) throws IOException {
        final Map<String, Object> c = sasl(user, password);
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + tlsPort);
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        c.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
        c.put(SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG,
                Files.readString(broker.dataDir().resolve("tls/self-signed.crt")));
        c.put(SslConfigs.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG, "");
        return c;
    }

    private static Admin admin(final Map<String, Object> settings) {
        final Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaBootstrap());
        p.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 40_000);
        p.putAll(settings);
        p.remove(ProducerConfig.MAX_BLOCK_MS_CONFIG);
        return Admin.create(p);
    }

    private static List<String> readAll(final KafkaConsumer<String, String> consumer, final int expected) {
        final List<String> values = new ArrayList<>();
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (values.size() < expected && System.nanoTime() < end) {
            consumer.poll(Duration.ofMillis(300)).forEach(r -> values.add(r.value()));
        }
        return values;
    }

    @Test
    void shouldRefuseAWrongPassword() {
        try (Admin admin = admin(sasl("alice", "not-her-password"))) {
            assertThatThrownBy(() -> admin.listTopics().names().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(SaslAuthenticationException.class);
        }
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, sasl("nobody", "x"))) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("orders", "x")).get(30, TimeUnit.SECONDS))
                    .satisfiesAnyOf(
                            e -> assertThat(e).isInstanceOf(ExecutionException.class).cause()
                                    .isInstanceOf(SaslAuthenticationException.class),
                            e -> assertThat(e).isInstanceOf(SaslAuthenticationException.class));
        }
    }

    @Test
    void shouldServeAnAuthenticatedUserInsideItsNamespace() {
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, sasl("alice", "alice-pw"))) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>("orders", "k" + i, "acme-" + i)).get(30, TimeUnit.SECONDS).offset();
            }
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new AssertionError(e);
        }
        final Map<String, Object> group = sasl("alice", "alice-pw");
        group.put(ConsumerConfig.GROUP_ID_CONFIG, "billing");
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, group)) {
            consumer.subscribe(List.of("orders"));
            assertThat(readAll(consumer, 5)).containsExactly("acme-0", "acme-1", "acme-2", "acme-3", "acme-4");
            consumer.commitSync();
        }
        // bob's "orders" is tenant globex's own topic: none of acme's records.
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, sasl("bob", "bob-pw"))) {
            producer.send(new ProducerRecord<>("orders", "g", "globex-0")).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<>("orders", "g", "globex-1")).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new AssertionError(e);
        }
        final TopicPartition tp = new TopicPartition("orders", 0);
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, sasl("bob", "bob-pw"))) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            // Read from the partition's start: acme's five records, were they visible, would come first.
            assertThat(readAll(consumer, 2)).containsExactly("globex-0", "globex-1");
        }
    }

    @Test
    void shouldRefuseAProduceWithoutPub() throws Exception {
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, sasl("alice", "alice-pw"))) {
            producer.send(new ProducerRecord<>("readonly", "seed")).get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, sasl("dave", "dave-pw"))) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("readonly", "x")).get(30, TimeUnit.SECONDS))
                    .satisfiesAnyOf(
                            e -> assertThat(e).isInstanceOf(ExecutionException.class).cause()
                                    .isInstanceOf(TopicAuthorizationException.class),
                            e -> assertThat(e).isInstanceOf(TopicAuthorizationException.class));
        }
        // dave may read what he may not write.
        final TopicPartition tp = new TopicPartition("readonly", 0);
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, sasl("dave", "dave-pw"))) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            assertThat(readAll(consumer, 1)).containsExactly("seed");
        }
    }

    @Test
    void shouldRefuseAGroupWithoutItsRight() {
        final Map<String, Object> group = sasl("erin", "erin-pw");
        group.put(ConsumerConfig.GROUP_ID_CONFIG, "erins-group");
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, group)) {
            consumer.subscribe(List.of("orders"));
            assertThatThrownBy(() -> {
                final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < end) {
                    consumer.poll(Duration.ofMillis(300));
                }
            }).isInstanceOf(GroupAuthorizationException.class);
        }
    }

    @Test
    void shouldRefuseAdministrationWithoutTheRights() {
        try (Admin admin = admin(sasl("dave", "dave-pw"))) {
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("made-by-dave", 1, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(TopicAuthorizationException.class);
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ClusterAuthorizationException.class);
        }
    }

    @Test
    void shouldListOnlyTheTopicsOfTheUsersNamespace() throws Exception {
        try (Admin admin = admin(sasl("alice", "alice-pw"))) {
            admin.createTopics(List.of(new NewTopic("acme-only", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("acme-only");
        }
        try (Admin admin = admin(sasl("bob", "bob-pw"))) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain("acme-only");
        }
    }

    @Test
    void shouldAuthenticateInsideTls() throws Exception {
        try (KafkaProducer<String, String> producer =
                KafkaClients.stringProducer(broker, saslSsl("alice", "alice-pw"))) {
            producer.send(new ProducerRecord<>("tls-orders", 0, "k", "sasl over tls")).get(30, TimeUnit.SECONDS);
        }
        final TopicPartition tp = new TopicPartition("tls-orders", 0);
        try (KafkaConsumer<String, String> consumer =
                KafkaClients.stringConsumer(broker, saslSsl("alice", "alice-pw"))) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            assertThat(readAll(consumer, 1)).containsExactly("sasl over tls");
        }
        try (Admin admin = admin(saslSsl("alice", "wrong"))) {
            assertThatThrownBy(() -> admin.listTopics().names().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(SaslAuthenticationException.class);
        }
    }
}
