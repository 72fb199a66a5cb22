package io.junction.conformance.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5Client;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import io.junction.conformance.support.BrokerProcess;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code java -jar junction.jar admin ...} changes users and rules of a running broker; clients feel it at once. */
@WithBroker(settings = {SecurityCast.ON, SecurityCast.KEY_SETTING, SecurityCast.MQTT_TIMEOUT,
        }, seed = SecurityCast.class)
class AdminCliIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Run(int exit, String out, String err) {
    }

    private static Run admin(final RunningBroker broker, final String password, final String... args)
            throws IOException, InterruptedException {
        final List<String> command = BrokerProcess.cliCommand("admin", "--url", broker.httpBase(), "--user", "root");
        command.addAll(List.of(args));
        final ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("JUNCTION_ADMIN_PASSWORD", password);
        final Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static Mqtt5BlockingClient dave(final RunningBroker broker) {
        final Mqtt5BlockingClient c = Mqtt5Client.builder().identifier("dave-" + System.nanoTime())
                .serverHost("127.0.0.1").serverPort(broker.port("mqtt.port")).simpleAuth().username("dave")
                .password("dave-pw".getBytes(StandardCharsets.UTF_8)).applySimpleAuth().buildBlocking();
        c.connect();
        return c;
    }

    @Test
    void usersAndRulesChangeLive(final RunningBroker broker) throws Exception {
        final Run created = admin(broker, "root-pw", "user", "dave", "--namespace", "acme", "--set-password",
                "dave-pw");
        assertThat(created.exit()).as(created.err()).isZero();
        assertThat(created.out()).contains("\"name\":\"dave\"").contains("\"namespace\":\"acme\"")
                .doesNotContain("dave-pw");

        final Mqtt5BlockingClient before = dave(broker);
        assertThatThrownBy(() -> before.publishWith().topic("t").qos(MqttQos.AT_LEAST_ONCE)
                .payload("x".getBytes(StandardCharsets.UTF_8)).send())
                .as("no rule yet: default deny").isInstanceOfSatisfying(Mqtt5PubAckException.class, e ->
                        assertThat(e.getMqttMessage().getReasonCode())
                                .isEqualTo(Mqtt5PubAckReasonCode.NOT_AUTHORIZED));

        assertThat(admin(broker, "root-pw", "acl", "dave", "--allow", "Topic:*=PUB,SUB").exit()).isZero();
        before.publishWith().topic("t").qos(MqttQos.AT_LEAST_ONCE).payload("y".getBytes(StandardCharsets.UTF_8))
                .send(); // the same connection, allowed now
        before.disconnect();

        assertThat(admin(broker, "root-pw", "users").out()).contains("\"name\":\"dave\"")
                .contains("Topic:*");
        final Run refused = admin(broker, "wrong", "users");
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("401");
        final Run badRule = admin(broker, "root-pw", "acl", "dave", "--allow", "Queue:x=PUB");
        assertThat(badRule.exit()).isEqualTo(1);
        assertThat(badRule.err()).contains("unknown resource kind");

        assertThat(admin(broker, "root-pw", "delete-user", "dave").exit()).isZero();
        assertThatThrownBy(() -> dave(broker)).isInstanceOf(Mqtt5ConnAckException.class);
    }

    @Test
    void tokensAreIssuedListedAndRevoked(final RunningBroker broker) throws Exception {
        assertThat(admin(broker, "root-pw", "user", "tara", "--namespace", "acme", "--set-password", "tara-pw")
                .exit()).isZero();
        assertThat(admin(broker, "root-pw", "acl", "tara", "--allow", "Topic:*=PUB").exit()).isZero();
        final Run issued = admin(broker, "root-pw", "token", "tara");
        assertThat(issued.exit()).as(issued.err()).isZero();
        final JsonNode answer = JSON.readTree(issued.out());
        final String token = answer.path("token").asText();
        final String id = answer.path("id").asText();
        assertThat(token).isNotEmpty();
        assertThat(id).isNotEmpty();
        assertThat(answer.path("expiresAt").asLong() - answer.path("issuedAt").asLong())
                .as("security.token-ttl-hours' default, 30 days").isEqualTo(Duration.ofDays(30).toMillis());

        final Run listed = admin(broker, "root-pw", "tokens", "tara");
        assertThat(listed.exit()).isZero();
        assertThat(listed.out()).contains(id).doesNotContain(token);
        assertThat(publishWith(broker, token)).as("the issued token publishes").isBetween(200, 299);

        assertThat(admin(broker, "root-pw", "revoke-token", "tara", id).exit()).isZero();
        assertThat(publishWith(broker, token)).as("revoked").isEqualTo(401);
        assertThat(admin(broker, "root-pw", "tokens", "tara").out()).doesNotContain(id);
        final Run unknown = admin(broker, "root-pw", "revoke-token", "tara", id);
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.err()).contains("404");
    }

    @Test
    void aTokenStopsAuthenticatingWhenItsLifetimeEnds(final RunningBroker broker) throws Exception {
        assertThat(admin(broker, "root-pw", "user", "tess", "--namespace", "acme", "--set-password", "tess-pw")
                .exit()).isZero();
        assertThat(admin(broker, "root-pw", "acl", "tess", "--allow", "Topic:*=PUB").exit()).isZero();
        final Run lasting = admin(broker, "root-pw", "token", "tess", "--ttl-hours", "0");
        assertThat(lasting.exit()).as(lasting.err()).isZero();
        assertThat(JSON.readTree(lasting.out()).path("expiresAt").asLong()).as("until revoked").isZero();
        final Run twoHours = admin(broker, "root-pw", "token", "tess", "--ttl-hours", "2");
        final JsonNode two = JSON.readTree(twoHours.out());
        assertThat(two.path("expiresAt").asLong() - two.path("issuedAt").asLong())
                .isEqualTo(Duration.ofHours(2).toMillis());

        // Short, as the test waits it out; one request in it is all the "within its lifetime" check needs.
        final HttpResponse<String> issued = issue(broker, "tess", "{\"ttlSeconds\": 3}");
        assertThat(issued.statusCode()).isEqualTo(201);
        final JsonNode brief = JSON.readTree(issued.body());
        assertThat(brief.path("expiresAt").asLong() - brief.path("issuedAt").asLong()).isEqualTo(3_000);
        final String token = brief.path("token").asText();
        assertThat(publishWith(broker, token)).as("within its lifetime").isBetween(200, 299);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250))
                .untilAsserted(() -> assertThat(publishWith(broker, token)).isEqualTo(401));
        assertThat(System.currentTimeMillis()).as("not before its end").isGreaterThanOrEqualTo(
                brief.path("expiresAt").asLong());
        final JsonNode listed = JSON.readTree(admin(broker, "root-pw", "tokens", "tess").out()).path("tokens");
        assertThat(listed).filteredOn(t -> t.path("id").asText().equals(brief.path("id").asText()))
                .singleElement().satisfies(t -> assertThat(t.path("expired").asBoolean()).isTrue());
        assertThat(publishWith(broker, JSON.readTree(lasting.out()).path("token").asText())).isBetween(200, 299);
        assertThat(broker.get("/metrics").body())
                .contains("junction_auth_failures_total{protocol=\"http\",reason=\"expired-token\"}");

        assertThat(issue(broker, "tess", "{\"ttlSeconds\": -1}").statusCode()).isEqualTo(400);
    }

    private static HttpResponse<String> issue(final RunningBroker broker, final String user, final String body)
            throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(broker.httpBase() + "/admin/users/"
                        + user + "/tokens")).header("authorization", "Basic " + Base64.getEncoder().encodeToString(
                                "root:root-pw".getBytes(StandardCharsets.UTF_8)))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The status of a CloudEvents publish signed with a bearer token. */
    private static int publishWith(final RunningBroker broker, final String token) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(broker.httpBase() + "/topics/t"))
                .header("authorization", "Bearer " + token).header("ce-specversion", "1.0")
                .header("ce-id", "e-" + System.nanoTime()).header("ce-source", "/cli-test").header("ce-type", "t")
                .POST(HttpRequest.BodyPublishers.ofString("hi")).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }
}
