package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessagingServiceGrpc;
import apache.rocketmq.v2.Publishing;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.QueryRouteResponse;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.SendMessageResponse;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Subscription;
import apache.rocketmq.v2.TelemetryCommand;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.AclRule;
import io.junction.tenancy.FailureThrottle;
import io.junction.tenancy.SecretCipher;
import io.junction.tenancy.SecurePolicy;
import io.junction.tenancy.SecurityEvents;
import io.junction.tenancy.SignatureVerifier;
import io.junction.tenancy.UserDirectory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The authenticator in front of a recording service, over a real (plaintext) gRPC connection. */
class CallAuthenticatorTest {
    @TempDir
    Path dir;

    /** What reached the service: "method client-id". */
    private final List<String> served = new CopyOnWriteArrayList<>();
    private final AtomicInteger verifications = new AtomicInteger();
    private ExecutorService executor;
    private Server server;
    private ManagedChannel channel;
    private UserDirectory users;

    @BeforeEach
    void start() throws Exception {
        users = UserDirectory.open(dir.resolve("users.json"), new SecretCipher("test-key"));
        users.putUser("alice", "acme", false, true, "alice-pw", "alice-secret");
        users.putUser("gina", "globex", false, true, "gina-pw", "gina-secret");
        users.setRules("alice", List.of(AclRule.parse("Topic:*", List.of("PUB", "SUB"), "ALLOW"),
                AclRule.parse("Topic:secret", List.of("PUB"), "DENY"),
                AclRule.parse("Group:*", List.of("SUB"), "ALLOW")));
        final SecurePolicy policy = new SecurePolicy(users, new FailureThrottle(1000, 60_000, System::nanoTime),
                SecurityEvents.NONE, Runnable::run, Clock.systemUTC(), Duration.ofSeconds(900));
        final SignatureVerifier counting = request -> {
            verifications.incrementAndGet();
            return policy.verify(request);
        };
        final AccessControl access = new AccessControl(policy, counting, policy, users, SecurityEvents.NONE);
        executor = Executors.newFixedThreadPool(2);
        server = NettyServerBuilder.forPort(0).executor(executor)
                .addTransportFilter(new ConnectionAuth.Installer(access))
                .addService(ServerInterceptors.intercept(new Recording(), new CallAuthenticator(access),
                        new ClientMetadata()))
                .build().start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    }

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        executor.shutdownNow();
    }

    private static String now(final ZoneId zone) {
        return DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(zone).format(Instant.now());
    }

    private static Metadata signed(final String user, final String secret, final String dateTime) throws Exception {
        final Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
        final String signature = HexFormat.of().withUpperCase()
                .formatHex(mac.doFinal(dateTime.getBytes(StandardCharsets.UTF_8)));
        final Metadata h = new Metadata();
        h.put(ClientMetadata.CLIENT_ID, "host@1@1@abc");
        h.put(CallAuthenticator.DATE_TIME, dateTime);
        h.put(CallAuthenticator.AUTHORIZATION, "MQv2-HMAC-SHA1 Credential=" + user
                + ", SignedHeaders=x-mq-date-time, Signature=" + signature);
        return h;
    }

    private MessagingServiceGrpc.MessagingServiceBlockingStub stub(final Metadata headers) {
        return MessagingServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                .withDeadlineAfter(5, TimeUnit.SECONDS);
    }

    private static SendMessageRequest send(final String namespace, final String topic) {
        return SendMessageRequest.newBuilder().addMessages(Message.newBuilder().setTopic(
                Resource.newBuilder().setResourceNamespace(namespace).setName(topic))).build();
    }

    @Test
    void shouldServeACorrectlySignedCallWithTheClientIdScopedToItsUser() throws Exception {
        final SendMessageResponse r = stub(signed("alice", "alice-secret", now(ZoneOffset.UTC)))
                .sendMessage(send("acme", "orders"));
        assertThat(r.getStatus().getCode()).isEqualTo(Code.OK);
        assertThat(served).containsExactly("SendMessage alice/host@1@1@abc");
    }

    @Test
    void shouldAcceptAClientSigningInAFarTimeZone() throws Exception {
        for (String zone : List.of("Pacific/Kiritimati", "Etc/GMT+12")) {
            assertThat(stub(signed("alice", "alice-secret", now(ZoneId.of(zone)))).sendMessage(send("acme", "o"))
                    .getStatus().getCode()).as(zone).isEqualTo(Code.OK);
        }
        assertThat(served).hasSize(2);
    }

    @Test
    void shouldRefuseMissingBadUnknownAndExpiredCredentialsWithUnauthorized() throws Exception {
        final Metadata none = new Metadata();
        none.put(ClientMetadata.CLIENT_ID, "c");
        final Metadata malformed = signed("alice", "alice-secret", now(ZoneOffset.UTC));
        malformed.put(CallAuthenticator.AUTHORIZATION, "Basic abc");
        final String old = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC)
                .format(Instant.now().minus(Duration.ofDays(3)));
        for (Metadata headers : List.of(none, malformed, signed("alice", "wrong", now(ZoneOffset.UTC)),
                signed("mallory", "alice-secret", now(ZoneOffset.UTC)), signed("alice", "alice-secret", old))) {
            final SendMessageResponse r = stub(headers).sendMessage(send("acme", "orders"));
            assertThat(r.getStatus().getCode()).isEqualTo(Code.UNAUTHORIZED);
            final QueryRouteResponse route = stub(headers).queryRoute(QueryRouteRequest.newBuilder()
                    .setTopic(Resource.newBuilder().setResourceNamespace("acme").setName("orders")).build());
            assertThat(route.getStatus().getCode()).isEqualTo(Code.UNAUTHORIZED);
        }
        assertThat(served).isEmpty();
    }

    @Test
    void shouldForbidNamesOutsideTheUsersNamespaceAndDeniedOnes() throws Exception {
        final Metadata alice = signed("alice", "alice-secret", now(ZoneOffset.UTC));
        // another tenant's name, however spelled; a default-namespace name; a name a DENY rule covers
        for (SendMessageRequest request : List.of(send("globex", "orders"), send("", "globex%orders"),
                send("", "orders"), send("acme", "secret"))) {
            final SendMessageResponse r = stub(alice).sendMessage(request);
            assertThat(r.getStatus().getCode()).as(request.toString()).isEqualTo(Code.FORBIDDEN);
        }
        assertThat(served).isEmpty();
    }

    @Test
    void shouldVerifyTheSameHeaderOnceAndStillRequireItOnEveryCall() throws Exception {
        final Metadata alice = signed("alice", "alice-secret", now(ZoneOffset.UTC));
        for (int i = 0; i < 5; i++) {
            assertThat(stub(alice).sendMessage(send("acme", "orders")).getStatus().getCode()).isEqualTo(Code.OK);
        }
        assertThat(verifications).hasValue(1);
        // the connection is not trusted for itself: the next call without the header is refused
        final Metadata none = new Metadata();
        assertThat(stub(none).sendMessage(send("acme", "orders")).getStatus().getCode())
                .isEqualTo(Code.UNAUTHORIZED);
        assertThat(served).hasSize(5);
    }

    @Test
    void shouldVerifyAHeaderAgainOnceAUserChangedSoADeletedUserIsRefusedAtOnce() throws Exception {
        final Metadata alice = signed("alice", "alice-secret", now(ZoneOffset.UTC));
        assertThat(stub(alice).sendMessage(send("acme", "orders")).getStatus().getCode()).isEqualTo(Code.OK);
        users.deleteUser("alice");
        assertThat(stub(alice).sendMessage(send("acme", "orders")).getStatus().getCode())
                .as("not a reused verification: UNAUTHORIZED, not FORBIDDEN").isEqualTo(Code.UNAUTHORIZED);
        assertThat(verifications).hasValue(2);
        assertThat(served).hasSize(1);
    }

    @Test
    void shouldPassTelemetrySettingsWithoutForbiddenTopicsAndEndTheStreamOfAForbiddenGroup() throws Exception {
        final LinkedBlockingQueue<Object> received = new LinkedBlockingQueue<>();
        final StreamObserver<TelemetryCommand> requests = MessagingServiceGrpc.newStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(
                        signed("alice", "alice-secret", now(ZoneOffset.UTC))))
                .telemetry(new StreamObserver<>() {
                    @Override
                    public void onNext(final TelemetryCommand value) {
                        received.add(value);
                    }

                    @Override
                    public void onError(final Throwable t) {
                        received.add(t);
                    }

                    @Override
                    public void onCompleted() {
                        received.add("completed");
                    }
                });
        final Resource acmeOrders = Resource.newBuilder().setResourceNamespace("acme").setName("orders").build();
        requests.onNext(TelemetryCommand.newBuilder().setSettings(Settings.newBuilder()
                .setClientType(ClientType.PRODUCER).setPublishing(Publishing.newBuilder().addTopics(acmeOrders)
                        .addTopics(Resource.newBuilder().setResourceNamespace("globex").setName("orders"))
                        .addTopics(Resource.newBuilder().setResourceNamespace("acme").setName("secret")))).build());
        // the service (which echoes Settings) saw only the topic alice may publish to
        final TelemetryCommand echoed = (TelemetryCommand) received.poll(5, TimeUnit.SECONDS);
        assertThat(echoed.getStatus().getCode()).isEqualTo(Code.OK);
        assertThat(echoed.getSettings().getPublishing().getTopicsList()).containsExactly(acmeOrders);
        requests.onNext(TelemetryCommand.newBuilder().setSettings(Settings.newBuilder()
                .setClientType(ClientType.SIMPLE_CONSUMER).setSubscription(Subscription.newBuilder()
                        .setGroup(Resource.newBuilder().setResourceNamespace("globex").setName("g")))).build());
        assertThat(((TelemetryCommand) received.poll(5, TimeUnit.SECONDS)).getStatus().getCode())
                .isEqualTo(Code.FORBIDDEN);
        assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo("completed");
        assertThat(served).containsExactly("Telemetry alice/host@1@1@abc");
    }

    /** Answers OK and records what reached it. */
    private final class Recording extends MessagingServiceGrpc.MessagingServiceImplBase {
        @Override
        public void sendMessage(final SendMessageRequest request, final StreamObserver<SendMessageResponse> out) {
            served.add("SendMessage " + ClientMetadata.clientId());
            out.onNext(SendMessageResponse.newBuilder().setStatus(Statuses.OK).build());
            out.onCompleted();
        }

        @Override
        public void queryRoute(final QueryRouteRequest request, final StreamObserver<QueryRouteResponse> out) {
            served.add("QueryRoute " + ClientMetadata.clientId());
            out.onNext(QueryRouteResponse.newBuilder().setStatus(Statuses.OK).build());
            out.onCompleted();
        }

        @Override
        public StreamObserver<TelemetryCommand> telemetry(final StreamObserver<TelemetryCommand> out) {
            served.add("Telemetry " + ClientMetadata.clientId());
            return new StreamObserver<>() {
                @Override
                public void onNext(final TelemetryCommand command) {
                    out.onNext(TelemetryCommand.newBuilder().setStatus(Statuses.OK)
                            .setSettings(command.getSettings()).build());
                }

                @Override
                public void onError(final Throwable t) {
                }

                @Override
                public void onCompleted() {
                    out.onCompleted();
                }
            };
        }
    }
}
