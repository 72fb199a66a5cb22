package io.junction.conformance.security;

import io.junction.conformance.support.BrokerProcess;
import io.junction.tenancy.AclRule;
import io.junction.tenancy.SecretCipher;
import io.junction.tenancy.UserDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * A broker with security on and a fixed cast, seeded into its user directory before it starts:
 * <ul>
 * <li>{@code root}: super user of the default namespace;</li>
 * <li>{@code alice} and {@code andy}: tenant {@code acme}, every action on every topic and group;</li>
 * <li>{@code bob}: tenant {@code globex}, the same rights in his namespace;</li>
 * <li>{@code carol}: tenant {@code acme}, may publish and subscribe to topics, except subscribe to {@code secret}
 * (a deny overriding the allow).</li>
 * </ul>
 * Passwords are {@code <name>-pw}, signing secrets {@code <name>-secret}.
 */
final class SecuredBroker implements AutoCloseable {

    static final String KEY = "conformance secret key";
    static final Duration DEADLINE = Duration.ofSeconds(30);

    private final BrokerProcess process;
    private final HttpClient http = HttpClient.newHttpClient();

    private SecuredBroker(final BrokerProcess process) {
        this.process = process;
    }

    static SecuredBroker start(final Map<String, String> settings) {
        try {
            final Path dir = Files.createTempDirectory("junction-security-it").resolve("data");
            final UserDirectory users = UserDirectory.open(dir.resolve("security/users.json"), new SecretCipher(KEY));
            users.putUser("root", "default", true, true, "root-pw", "root-secret");
            final List<AclRule> everything = List.of(AclRule.parse("*", List.of("ALL"), "ALLOW"));
            for (final String[] u : new String[][] {{"alice", "acme"}, {"andy", "acme"}, {"bob", "globex"}}) {
                users.putUser(u[0], u[1], false, true, u[0] + "-pw", u[0] + "-secret");
                users.setRules(u[0], everything);
            }
            users.putUser("carol", "acme", false, true, "carol-pw", "carol-secret");
            users.setRules("carol", List.of(AclRule.parse("Topic:*", List.of("PUB", "SUB"), "ALLOW"),
                    AclRule.parse("Group:*", List.of("ALL"), "ALLOW"),
                    AclRule.parse("Topic:secret", List.of("SUB"), "DENY")));
            final BrokerProcess.Builder b = BrokerProcess.builder(dir)
                    .set("security.enabled", "true")
                    .set("security.secret-key", KEY)
                    .set("mqtt.connect-timeout-ms", "2000");
            settings.forEach(b::set);
            final BrokerProcess process = b.start();
            try {
                process.awaitHealthy(DEADLINE);
            } catch (final RuntimeException | AssertionError e) {
                process.close();
                throw e;
            }
            return new SecuredBroker(process);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    BrokerProcess process() {
        return process;
    }

    int port(final String key) {
        return Integer.parseInt(process.setting(key));
    }

    String mqttUri() {
        return "tcp://127.0.0.1:" + port("mqtt.port");
    }

    String amqpUri() {
        return "amqp://127.0.0.1:" + port("amqp.port");
    }

    static String basic(final String user, final String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
    }

    /** An HTTP request to the broker; {@code authorization} null sends none. */
    HttpResponse<String> http(final String method, final String path, final String authorization,
                              final String contentType, final String body, final Map<String, String> headers) {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(process.httpBase() + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        headers.forEach(b::header);
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        process.close();
    }
}
