package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.unique;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.GetOffsetRequest;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.PullMessageRequest;
import apache.rocketmq.v2.QueryOffsetPolicy;
import apache.rocketmq.v2.QueryOffsetRequest;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.UpdateOffsetRequest;
import io.junction.conformance.support.DataDirSeed;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import io.junction.tenancy.AclRule;
import io.junction.tenancy.SecretCipher;
import io.junction.tenancy.UserDirectory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.shaded.com.google.protobuf.util.Durations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The offset RPCs with security on: signed calls, namespaces kept apart, the ACL applied as to the other calls. */
@WithBroker(settings = {
        "security.enabled=true",
        "security.secret-key=" + GrpcOffsetSecurityIT.KEY,
        "security.max-failures=100000",
        "grpc.auto-create-queues=1"},
        seed = GrpcOffsetSecurityIT.Users.class)
class GrpcOffsetSecurityIT {
    static final String KEY = "grpc-offset-security-it-key";
    private static final String PAYROLL = "payroll";
    private static final Duration WAIT = Duration.ofSeconds(30);

    static RunningBroker broker;
    GrpcClients clients;
    GrpcStubs alice;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    /** The users and rules these tests act as, written before the broker starts. */
    static final class Users implements DataDirSeed {
        @Override
        public void write(final Path dataDir) {
            final UserDirectory users =
                    UserDirectory.open(dataDir.resolve("security/users.json"), new SecretCipher(KEY));
            users.putUser("alice", "acme", false, true, "alice-pw", "alice-secret");
            users.setRules("alice", List.of(AclRule.parse("Topic:*", List.of("PUB", "SUB"), "ALLOW"),
                    AclRule.parse("Topic:" + PAYROLL, List.of("PUB", "SUB"), "DENY"),
                    AclRule.parse("Group:*", List.of("SUB"), "ALLOW")));
        }
    }

    @BeforeEach
    void open() {
        clients = new GrpcClients(broker);
        alice = new GrpcStubs(broker, "alice", "alice-secret");
    }

    @AfterEach
    void close() throws Exception {
        clients.close();
        alice.close();
    }

    private static Resource acme(final String name) {
        return Resource.newBuilder().setResourceNamespace("acme").setName(name).build();
    }

    private static MessageQueue queue(final Resource topic) {
        return MessageQueue.newBuilder().setTopic(topic).setId(0).build();
    }

    private static PullMessageRequest pull(final Resource group, final Resource topic) {
        return PullMessageRequest.newBuilder().setGroup(group).setMessageQueue(queue(topic)).setOffset(0)
                .setBatchSize(32).setLongPollingTimeout(Durations.fromMillis(0)).build();
    }

    @Test
    void shouldServeATenantsQueueUnderItsNamespace() throws Exception {
        final String topic = unique("orders");
        final Producer producer = clients.producer(clients.configuration("acme", "alice", "alice-secret"), topic);
        for (int i = 0; i < 3; i++) {
            producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("order-" + i)).build());
        }
        await().atMost(WAIT).until(() -> alice.blocking().queryOffset(QueryOffsetRequest.newBuilder()
                .setMessageQueue(queue(acme(topic))).setQueryOffsetPolicy(QueryOffsetPolicy.END).build())
                .getOffset() == 3);

        final GrpcStubs.Pulled pulled = alice.pull(pull(acme("billing"), acme(topic)), WAIT);
        assertThat(pulled.status().getCode()).isEqualTo(Code.OK);
        assertThat(pulled.bodies()).containsExactly("order-0", "order-1", "order-2");
        // the client sees its topic as it named it: the namespace apart, the name unwrapped
        assertThat(pulled.messages()).allSatisfy(m -> assertThat(m.getTopic()).isEqualTo(acme(topic)));

        assertThat(alice.blocking().updateOffset(UpdateOffsetRequest.newBuilder().setGroup(acme("billing"))
                .setMessageQueue(queue(acme(topic))).setOffset(2).build()).getStatus().getCode()).isEqualTo(Code.OK);
        assertThat(alice.blocking().getOffset(GetOffsetRequest.newBuilder().setGroup(acme("billing"))
                .setMessageQueue(queue(acme(topic))).build()).getOffset()).isEqualTo(2);
    }

    @Test
    void shouldRefuseWhatThePolicyDeniesAndUnsignedCalls() throws Exception {
        final Resource globexTopic = Resource.newBuilder().setResourceNamespace("globex").setName("orders").build();
        assertThat(alice.pull(pull(acme("billing"), acme(PAYROLL)), WAIT).status().getCode())
                .isEqualTo(Code.FORBIDDEN);
        assertThat(alice.pull(pull(acme("billing"), globexTopic), WAIT).status().getCode())
                .isEqualTo(Code.FORBIDDEN);
        assertThat(alice.blocking().queryOffset(QueryOffsetRequest.newBuilder().setMessageQueue(queue(globexTopic))
                .setQueryOffsetPolicy(QueryOffsetPolicy.END).build()).getStatus().getCode())
                .isEqualTo(Code.FORBIDDEN);
        assertThat(alice.blocking().updateOffset(UpdateOffsetRequest.newBuilder().setGroup(acme("billing"))
                .setMessageQueue(queue(acme(PAYROLL))).setOffset(0).build()).getStatus().getCode())
                .isEqualTo(Code.FORBIDDEN);
        try (GrpcStubs anonymous = new GrpcStubs(broker)) {
            assertThat(anonymous.pull(pull(acme("billing"), acme("orders")), WAIT).status().getCode())
                    .isEqualTo(Code.UNAUTHORIZED);
            assertThat(anonymous.blocking().getOffset(GetOffsetRequest.newBuilder().setGroup(acme("billing"))
                    .setMessageQueue(queue(acme("orders"))).build()).getStatus().getCode())
                    .isEqualTo(Code.UNAUTHORIZED);
        }
    }
}
