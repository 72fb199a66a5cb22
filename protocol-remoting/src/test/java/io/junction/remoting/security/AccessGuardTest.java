package io.junction.remoting.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.tenancy.AclRule;
import io.junction.tenancy.FailureThrottle;
import io.junction.tenancy.SecretCipher;
import io.junction.tenancy.SecurePolicy;
import io.junction.tenancy.SecurityEvents;
import io.junction.tenancy.UserDirectory;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The guard's verdicts on signed and unsigned requests, one request at a time. */
class AccessGuardTest {
    private static MessageStore store;
    private static AccessGuard guard;
    private static UserDirectory users;
    private static final List<AclRule> DAVE = List.of(AclRule.parse("Topic:*", List.of("PUB", "SUB"), "ALLOW"),
            AclRule.parse("Group:*", List.of("SUB"), "ALLOW"));
    private final EmbeddedChannel channel = new EmbeddedChannel();

    @BeforeAll
    static void setUp() throws Exception {
        final Path dir = Files.createTempDirectory("remoting-guard");
        store = MessageStore.open(StoreConfig.builder(dir.resolve("store")).segmentSize(16 << 20)
                .flushInterval(Duration.ofMillis(50)).build());
        users = UserDirectory.open(dir.resolve("users.json"), new SecretCipher("k"));
        users.putUser("alice", "acme", false, true, null, "alice-secret");
        users.setRules("alice", List.of(AclRule.parse("Topic:*", List.of("PUB", "SUB"), "ALLOW"),
                AclRule.parse("Topic:secret", List.of("SUB"), "DENY"),
                AclRule.parse("Group:*", List.of("SUB"), "ALLOW")));
        users.putUser("bob", "default", false, true, null, "bob-secret");
        users.setRules("bob", List.of(AclRule.parse("Topic:*", List.of("ALL"), "ALLOW")));
        users.putUser("root", "default", true, true, null, "root-secret");
        users.putUser("dave", "acme", false, true, null, "dave-secret");
        users.setRules("dave", DAVE);
        final SecurePolicy policy = new SecurePolicy(users, new FailureThrottle(1000, 60_000, System::nanoTime),
                SecurityEvents.NONE, Runnable::run, Clock.systemUTC(), Duration.ofMinutes(15));
        guard = new AccessGuard(policy, policy, users::isTenant, users::version,
                new RequestPermissions(store, "cluster", "broker"),
                "cluster", "broker");
    }

    @AfterAll
    static void tearDown() {
        store.close();
    }

    @Test
    void aSignedSendInTheCallersNamespaceIsAdmitted() {
        assertThat(verdict(signed(send("acme%orders"), "alice", "alice-secret")).allowed()).isTrue();
    }

    @Test
    void unsignedWronglySignedAndUnknownAreRefusedWithNoPermission() {
        final Admission unsigned = verdict(send("acme%orders"));
        assertThat(unsigned.code()).isEqualTo(ResponseCode.NO_PERMISSION);
        assertThat(unsigned.remark()).contains("not signed");

        final Admission wrongSecret = verdict(signed(send("acme%orders"), "alice", "not-her-secret"));
        assertThat(wrongSecret.code()).isEqualTo(ResponseCode.NO_PERMISSION);
        assertThat(wrongSecret.remark()).contains("authentication failed");

        assertThat(verdict(signed(send("acme%orders"), "mallory", "x")).allowed()).isFalse();

        final RemotingCommand tampered = signed(send("acme%orders"), "alice", "alice-secret");
        tampered.body("changed after signing".getBytes(StandardCharsets.UTF_8));
        assertThat(verdict(tampered).allowed()).isFalse();
    }

    @Test
    void aGoodRequestEarnsNothingForTheNextOnTheSameChannel() {
        assertThat(verdict(signed(send("acme%orders"), "alice", "alice-secret")).allowed()).isTrue();
        assertThat(verdict(send("acme%orders")).allowed()).isFalse();
    }

    @Test
    void namesOutsideTheNamespaceAreRefused() {
        final Admission other = verdict(signed(send("globex%orders"), "alice", "alice-secret"));
        assertThat(other.code()).isEqualTo(ResponseCode.NO_PERMISSION);
        assertThat(other.remark()).contains("PUB").contains("globex%orders");
        assertThat(verdict(signed(send("orders"), "alice", "alice-secret")).allowed()).isFalse();
        assertThat(verdict(signed(send("acme%orders"), "bob", "bob-secret")).allowed()).isFalse();
    }

    @Test
    void denyOverridesAllowAndRetryTopicsBelongToTheGroup() {
        assertThat(verdict(signed(pull("acme%secret", "acme%g"), "alice", "alice-secret")).allowed()).isFalse();
        assertThat(verdict(signed(pull("acme%orders", "acme%g"), "alice", "alice-secret")).allowed()).isTrue();
        assertThat(verdict(signed(pull("%RETRY%acme%g", "acme%g"), "alice", "alice-secret")).allowed()).isTrue();
        assertThat(verdict(signed(pull("%RETRY%globex%g", "acme%g"), "alice", "alice-secret")).allowed())
                .isFalse();
    }

    @Test
    void internalTopicsAreForSuperUsersButTheTemplateRouteIsOpen() {
        assertThat(verdict(signed(route("TBW102"), "alice", "alice-secret")).allowed()).isTrue();
        assertThat(verdict(signed(route("acme%orders"), "alice", "alice-secret")).allowed()).isTrue();
        // bob's Topic:* would cover these names: they are reserved anyway.
        assertThat(verdict(signed(pull("RMQ_SYS_TRANS_HALF_TOPIC", "g"), "bob", "bob-secret")).allowed()).isFalse();
        assertThat(verdict(signed(send("TBW102"), "bob", "bob-secret")).allowed()).isFalse();
        assertThat(verdict(signed(pull("RMQ_SYS_TRANS_HALF_TOPIC", "g"), "root", "root-secret")).allowed())
                .isTrue();
    }

    @Test
    void codesOutsideTheTableAndUserAdminAreForSuperUsers() {
        final RemotingCommand unknown = RemotingCommand.request(9999, 1, false);
        assertThat(verdict(signed(unknown, "alice", "alice-secret")).remark()).contains("super users");
        assertThat(verdict(signed(RemotingCommand.request(9999, 2, false), "root", "root-secret")).allowed())
                .isTrue();
        final RemotingCommand createUser = RemotingCommand.request(RequestCode.AUTH_CREATE_USER, 3, false)
                .put("username", "eve");
        assertThat(verdict(signed(createUser, "bob", "bob-secret")).allowed()).isFalse();
    }

    @Test
    void aViewByOffsetOfNothingRevealsNothingAndNeedsNoTopic() {
        final RemotingCommand view = RemotingCommand.request(RequestCode.VIEW_MESSAGE_BY_ID, 4, false)
                .put("offset", 123456789L);
        assertThat(verdict(signed(view, "alice", "alice-secret")).allowed()).isTrue();
    }

    @Test
    void aPullThatWaitedWhileItsSubWasTakenAwayIsRefusedWhenItAnswers() {
        final Admission pull = verdict(signed(pull("acme%orders", "acme%g"), "dave", "dave-secret"));
        final Admission send = verdict(signed(send("acme%orders"), "dave", "dave-secret"));
        assertThat(pull.allowed()).isTrue();
        assertThat(pull.refusalNow()).as("rules unchanged").isNull();
        try {
            users.setRules("dave", List.of(AclRule.parse("Topic:*", List.of("PUB"), "ALLOW"),
                    AclRule.parse("Group:*", List.of("SUB"), "ALLOW")));
            assertThat(pull.refusalNow()).contains("SUB").contains("acme%orders");
            assertThat(send.refusalNow()).as("a send is never decided again once it was stored").isNull();
            users.setRules("dave", DAVE);
            assertThat(pull.refusalNow()).as("given back before the answer").isNull();
            users.deleteUser("dave");
            assertThat(pull.refusalNow()).isNotNull();
        } finally {
            users.putUser("dave", "acme", false, true, null, "dave-secret");
            users.setRules("dave", DAVE);
        }
    }

    private Admission verdict(final RemotingCommand request) {
        return guard.admit(channel, request).join();
    }

    private static RemotingCommand send(final String topic) {
        return RemotingCommand.request(RequestCode.SEND_MESSAGE_V2, 1, false).put("a", "pg").put("b", topic)
                .put("e", 0).body("hello".getBytes(StandardCharsets.UTF_8));
    }

    private static RemotingCommand pull(final String topic, final String group) {
        return RemotingCommand.request(RequestCode.PULL_MESSAGE, 1, false).put("topic", topic)
                .put("consumerGroup", group).put("queueId", 0).put("queueOffset", 0);
    }

    private static RemotingCommand route(final String topic) {
        return RemotingCommand.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, 1, false).put("topic", topic);
    }

    /** Signs as RocketMQ's AclClientRPCHook does: sorted field values (but Signature), then the body. */
    private static RemotingCommand signed(final RemotingCommand request, final String accessKey,
                                          final String secret) {
        request.put("AccessKey", accessKey);
        final StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : new TreeMap<>(request.extFields()).entrySet()) {
            sb.append(e.getValue());
        }
        final byte[] head = sb.toString().getBytes(StandardCharsets.UTF_8);
        final byte[] body = request.body() == null ? new byte[0] : request.body();
        final byte[] content = new byte[head.length + body.length];
        System.arraycopy(head, 0, content, 0, head.length);
        System.arraycopy(body, 0, content, head.length, body.length);
        try {
            final Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            return request.put("Signature", Base64.getEncoder().encodeToString(mac.doFinal(content)));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
