package io.junction.tenancy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecurePolicyTest {

    private static final InetSocketAddress CLIENT = new InetSocketAddress("10.0.0.7", 40000);
    private static final Instant NOW = Instant.parse("2026-12-03T10:00:00Z");

    @TempDir
    Path dir;

    private final AtomicLong nanos = new AtomicLong();
    private final List<String> failures = new ArrayList<>();
    private final List<String> denials = new ArrayList<>();
    private UserDirectory users;
    private AccessControl access;

    @BeforeEach
    void setUp() {
        users = UserDirectory.open(dir.resolve("users.json"), new SecretCipher("test key"),
                Clock.fixed(NOW, ZoneOffset.UTC));
        users.putUser("root", "default", true, true, "root-pw", "root-secret");
        users.putUser("alice", "acme", false, true, "alice-pw", "alice-secret");
        users.setRules("alice", List.of(
                AclRule.parse("Topic:orders*", List.of("PUB", "SUB"), "ALLOW"),
                AclRule.parse("Topic:orders-secret", List.of("SUB"), "DENY"),
                AclRule.parse("Group:billing", List.of("SUB"), "allow")));
        users.putUser("bob", "globex", false, true, "bob-pw", null);
        users.setRules("bob", List.of(AclRule.parse("*", List.of("ALL"), "ALLOW")));
        access = AccessControl.secured(newPolicy(), users, SecurityEvents.NONE);
    }

    private SecurePolicy newPolicy() {
        return newPolicy(NOW);
    }

    private SecurePolicy newPolicy(final Instant now) {
        return new SecurePolicy(users, new FailureThrottle(5, 60_000, nanos::get), new SecurityEvents() {
            @Override
            public void authenticationFailed(final String protocol, final String reason) {
                failures.add(protocol + ":" + reason);
            }

            @Override
            public void denied(final ResourceKind kind, final Action action) {
                denials.add(kind + ":" + action);
            }
        }, Runnable::run, Clock.fixed(now, ZoneOffset.UTC), Duration.ofMinutes(15));
    }

    private Principal login(final String user, final String password) {
        final AuthResult r = access.authenticate(new Credentials("mqtt", user, password, CLIENT)).join();
        return r.principal().orElse(null);
    }

    @Test
    void passwordsAuthenticateIntoTheUsersNamespace() {
        assertThat(login("alice", "alice-pw")).isEqualTo(new Principal("alice", "acme", false));
        assertThat(login("alice", "alice-pw")).as("second time from the cache").isNotNull();
        assertThat(login("root", "root-pw").superUser()).isTrue();
        assertThat(login("alice", "wrong")).isNull();
        assertThat(login("mallory", "x")).isNull();
        assertThat(access.authenticate(Credentials.anonymous("amqp", CLIENT)).join().authenticated()).isFalse();
        assertThat(failures).containsExactly("mqtt:bad-password", "mqtt:unknown-user", "amqp:anonymous");
    }

    @Test
    void changedPasswordIsNotServedFromTheCache() {
        assertThat(login("alice", "alice-pw")).isNotNull();
        users.putUser("alice", "acme", false, true, "new-pw", null);
        assertThat(login("alice", "alice-pw")).isNull();
        assertThat(login("alice", "new-pw")).isNotNull();
    }

    @Test
    void disabledUserCannotAuthenticateNorActAnyLonger() {
        final Principal alice = login("alice", "alice-pw");
        users.putUser("alice", "acme", false, false, null, null);
        assertThat(login("alice", "alice-pw")).isNull();
        assertThat(access.allows(alice, ResourceKind.TOPIC, "acme%orders", Action.PUB)).isFalse();
    }

    @Test
    void tokensAuthenticateAndOnlyTheirDigestIsStored() throws Exception {
        final String token = users.issueToken("alice", Duration.ZERO);
        assertThat(access.authenticate(Credentials.token("http", token, CLIENT)).join().principal())
                .contains(new Principal("alice", "acme"));
        assertThat(access.authenticate(Credentials.token("http", token + "x", CLIENT)).join().authenticated())
                .isFalse();
        final String file = Files.readString(dir.resolve("users.json"));
        assertThat(file).doesNotContain(token).doesNotContain("alice-pw").doesNotContain("alice-secret");
    }

    @Test
    void aTokenAuthenticatesUntilItExpiresThenIsRefusedAsExpired() {
        final String token = users.issueToken("alice", Duration.ofHours(1));
        final String lasting = users.issueToken("alice", Duration.ZERO);
        final AccessControl anHourLater = AccessControl.secured(newPolicy(NOW.plus(Duration.ofHours(1))), users,
                SecurityEvents.NONE);
        final AccessControl aYearLater = AccessControl.secured(newPolicy(NOW.plus(Duration.ofDays(365))), users,
                SecurityEvents.NONE);

        assertThat(access.authenticate(Credentials.token("http", token, CLIENT)).join().principal())
                .contains(new Principal("alice", "acme"));
        assertThat(anHourLater.authenticate(Credentials.token("http", token, CLIENT)).join().authenticated())
                .isFalse();
        assertThat(aYearLater.authenticate(Credentials.token("http", lasting, CLIENT)).join().principal())
                .as("a token without a lifetime lasts until revoked").contains(new Principal("alice", "acme"));
        assertThat(failures).containsExactly("http:expired-token");
    }

    @Test
    void namespacesAreEnforcedWhateverTheClientSpells() {
        final Principal alice = login("alice", "alice-pw");
        assertThat(access.allows(alice, ResourceKind.TOPIC, "acme%orders", Action.PUB)).isTrue();
        assertThat(access.allows(alice, ResourceKind.TOPIC, alice.qualify("orders-eu"), Action.SUB)).isTrue();
        // Unwrapped, another tenant's, or a name smuggling a second namespace: all outside acme.
        assertThat(access.allows(alice, ResourceKind.TOPIC, "orders", Action.PUB)).isFalse();
        assertThat(access.allows(alice, ResourceKind.TOPIC, "globex%orders", Action.PUB)).isFalse();
        // A default-namespace super user may, an ordinary default-namespace user may not, reach a tenant's name.
        users.putUser("dave", "default", false, true, "dave-pw", null);
        users.setRules("dave", List.of(AclRule.parse("*", List.of("ALL"), "ALLOW")));
        final Principal dave = login("dave", "dave-pw");
        assertThat(access.allows(dave, ResourceKind.TOPIC, "acme%orders", Action.SUB)).isFalse();
        assertThat(access.allows(dave, ResourceKind.TOPIC, "%24SYS", Action.SUB)).isTrue();
        // The store's and SDKs' internal names are for super users, whatever a default-namespace rule says.
        assertThat(access.allows(dave, ResourceKind.TOPIC, "RMQ_SYS_TRANS_HALF_TOPIC", Action.SUB)).isFalse();
        assertThat(access.allows(dave, ResourceKind.TOPIC, "rmq_sys_wheel_timer", Action.SUB)).isFalse();
        assertThat(access.allows(dave, ResourceKind.TOPIC, "%MQTT%SESSIONS", Action.SUB)).isFalse();
        assertThat(access.allows(dave, ResourceKind.GROUP, "CID_RMQ_SYS_TRANS", Action.SUB)).isFalse();
        // Retry and dead-letter names of the user's group resolve to the group.
        assertThat(access.allows(alice, ResourceKind.GROUP, "%RETRY%acme%billing", Action.SUB)).isTrue();
        assertThat(access.allows(alice, ResourceKind.GROUP, "%DLQ%globex%billing", Action.SUB)).isFalse();

        final Principal bob = login("bob", "bob-pw");
        assertThat(access.allows(bob, ResourceKind.TOPIC, "globex%anything", Action.DELETE)).isTrue();
        assertThat(access.allows(bob, ResourceKind.TOPIC, "acme%orders", Action.SUB)).isFalse();

        final Principal root = login("root", "root-pw");
        assertThat(access.allows(root, ResourceKind.TOPIC, "acme%orders", Action.DELETE)).isTrue();
    }

    @Test
    void denyOverridesAllowAndNoMatchDenies() {
        final Principal alice = login("alice", "alice-pw");
        assertThat(access.allows(alice, ResourceKind.TOPIC, "acme%orders-secret", Action.PUB)).isTrue();
        assertThat(access.allows(alice, ResourceKind.TOPIC, "acme%orders-secret", Action.SUB)).isFalse();
        assertThat(access.allows(alice, ResourceKind.TOPIC, "acme%orders", Action.DELETE)).isFalse();
        assertThat(access.allows(alice, ResourceKind.GROUP, "acme%billing", Action.SUB)).isTrue();
        assertThat(access.allows(alice, ResourceKind.GROUP, "acme%billing", Action.PUB)).isFalse();
        assertThat(access.allows(alice, ResourceKind.CLUSTER, "JunctionCluster", Action.GET)).isFalse();
        assertThat(denials).hasSize(4);
    }

    @Test
    void policyChangesApplyToConnectedPrincipals() {
        final Principal alice = login("alice", "alice-pw");
        assertThat(access.allows(alice, ResourceKind.TOPIC, "acme%orders", Action.PUB)).isTrue();
        users.setRules("alice", List.of());
        assertThat(access.allows(alice, ResourceKind.TOPIC, "acme%orders", Action.PUB)).isFalse();
        users.deleteUser("alice");
        assertThat(login("alice", "alice-pw")).isNull();
    }

    @Test
    void signaturesAreCheckedWithTheSealedSecret() throws Exception {
        final byte[] content = "TopicTestPG1700000000000".getBytes(StandardCharsets.UTF_8);
        final String base64 = Base64.getEncoder().encodeToString(hmac("alice-secret", content));
        assertThat(access.verify(signed("alice", content, base64, SignedRequest.Encoding.BASE64, null)).principal())
                .contains(new Principal("alice", "acme"));
        final String wrong = Base64.getEncoder().encodeToString(hmac("guess", content));
        assertThat(access.verify(signed("alice", content, wrong, SignedRequest.Encoding.BASE64, null))
                .authenticated()).isFalse();
        assertThat(access.verify(signed("bob", content, base64, SignedRequest.Encoding.BASE64, null))
                .failureReason()).contains("disabled-or-no-secret");

        final byte[] date = "20261203T100000Z".getBytes(StandardCharsets.UTF_8);
        final String hex = HexFormat.of().withUpperCase().formatHex(hmac("alice-secret", date));
        assertThat(access.verify(signed("alice", date, hex, SignedRequest.Encoding.HEX, NOW.minusSeconds(60)))
                .authenticated()).isTrue();
        assertThat(access.verify(signed("alice", date, hex, SignedRequest.Encoding.HEX, NOW.minusSeconds(3600)))
                .failureReason()).contains("expired-signature");
        assertThat(access.verify(signed("alice", date, "zz-not-hex", SignedRequest.Encoding.HEX, NOW))
                .failureReason()).contains("malformed-signature");
    }

    @Test
    void repeatedFailuresFromOneSourceAreThrottled() {
        for (int i = 0; i < 5; i++) {
            assertThat(login("alice", "guess" + i)).isNull();
        }
        assertThat(login("alice", "alice-pw")).as("right password, but throttled").isNull();
        assertThat(failures).last().isEqualTo("mqtt:throttled");
        final Principal other = access.authenticate(new Credentials("mqtt", "alice", "alice-pw",
                new InetSocketAddress("10.0.0.8", 1))).join().principal().orElse(null);
        assertThat(other).as("another source is not throttled").isNotNull();
        assertThat(login("bob", "bob-pw")).as("another user from the same host is not throttled").isNotNull();
        nanos.addAndGet(Duration.ofSeconds(61).toNanos());
        assertThat(login("alice", "alice-pw")).as("after the window").isNotNull();
    }

    @Test
    void directorySurvivesReopeningAndRefusesAWrongKey() {
        final UserDirectory again = UserDirectory.open(dir.resolve("users.json"), new SecretCipher("test key"));
        assertThat(again.users()).extracting(User::name).containsExactlyInAnyOrder("root", "alice", "bob");
        assertThat(again.user("alice").orElseThrow().rules()).hasSize(3);
        assertThat(again.signingSecret("alice")).contains("alice-secret");
        assertThatThrownBy(() -> UserDirectory.open(dir.resolve("users.json"), new SecretCipher("other key")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("secret key");
    }

    @Test
    void rulesParseLikeRocketMqResources() {
        assertThat(AclRule.parse("Topic:a*", List.of("pub"), "Deny").resource()).isEqualTo("Topic:a*");
        assertThatThrownBy(() -> AclRule.parse("Queue:a", List.of("PUB"), "ALLOW"))
                .hasMessageContaining("unknown resource kind");
        assertThatThrownBy(() -> AclRule.parse("Topic:a*b", List.of("PUB"), "ALLOW"))
                .hasMessageContaining("prefix");
        assertThatThrownBy(() -> AclRule.parse("Topic:a", List.of("FLY"), "ALLOW"))
                .hasMessageContaining("unknown action");
        assertThatThrownBy(() -> AclRule.parse("Topic:a", List.of("PUB"), "MAYBE"))
                .hasMessageContaining("ALLOW or DENY");
    }

    private static SignedRequest signed(final String ak, final byte[] content, final String sig,
                                        final SignedRequest.Encoding enc, final Instant at) {
        return new SignedRequest("remoting", ak, content, sig, enc, at, CLIENT);
    }

    private static byte[] hmac(final String key, final byte[] content) throws Exception {
        final Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
        return mac.doFinal(content);
    }
}
