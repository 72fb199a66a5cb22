package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.body;
import static io.junction.conformance.grpc.GrpcClients.unique;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.EndTransactionRequest;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessagingServiceGrpc;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.SystemProperties;
import apache.rocketmq.v2.TransactionSource;
import io.junction.conformance.support.AuditCounts;
import io.junction.conformance.support.DataDirSeed;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import io.junction.tenancy.AclRule;
import io.junction.tenancy.SecretCipher;
import io.junction.tenancy.UserDirectory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;
import org.apache.rocketmq.shaded.grpc.netty.NettyChannelBuilder;
import org.apache.rocketmq.shaded.io.grpc.ManagedChannel;
import org.apache.rocketmq.shaded.io.grpc.Metadata;
import org.apache.rocketmq.shaded.io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Authentication, authorization and namespaces on the gRPC front-end, with the 5.x Java client signing its calls
 * ({@code StaticSessionCredentialsProvider}) and setting a namespace, against a broker started with security on.
 */
// the refusals below all come from 127.0.0.1: keep the failure throttle from locking it out; the shortest long-polling
// timeout (5 s by default): closing the idle push consumer waits for its parked receive
@WithBroker(settings = {
        "security.enabled=true",
        "security.secret-key=" + GrpcSecurityIT.KEY,
        "security.max-failures=100000",
        "grpc.long-polling-timeout-ms=1000"},
        seed = GrpcSecurityIT.Users.class)
class GrpcSecurityIT {
    static final String KEY = "grpc-security-it-key";
    /** A topic alice's rules deny although {@code Topic:*} allows. */
    private static final String PAYROLL = "payroll";

    static RunningBroker broker;
    GrpcClients clients;

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
            users.putUser("gina", "globex", false, true, "gina-pw", "gina-secret");
            users.setRules("gina", List.of(AclRule.parse("Topic:*", List.of("PUB", "SUB"), "ALLOW"),
                    AclRule.parse("Group:*", List.of("SUB"), "ALLOW")));
            users.putUser("root", "default", true, true, "root-pw", "root-secret");
        }
    }

    @BeforeEach
    void clients() {
        clients = new GrpcClients(broker);
    }

    @AfterEach
    void close() {
        clients.close();
    }

    private ClientConfiguration alice() {
        return clients.configuration("acme", "alice", "alice-secret");
    }

    private ClientConfiguration root() {
        return clients.configuration("", "root", "root-secret");
    }

    private static void send(final Producer producer, final String topic, final String text) throws Exception {
        producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8(text)).build());
    }

    /** Every message a new group of {@code topic} can get within {@code wait} (acking each). */
    private List<String> everything(final ClientConfiguration configuration, final String topic,
                                    final int expected, final Duration wait) throws Exception {
        final SimpleConsumer consumer = clients.simpleConsumer(configuration, unique("audit"), topic);
        final List<String> got = new ArrayList<>();
        for (MessageView v : GrpcClients.drain(consumer, expected, wait)) {
            got.add(body(v));
        }
        for (MessageView v : consumer.receive(32, Duration.ofSeconds(30))) { // nothing beyond them
            got.add(body(v));
            consumer.ack(v);
        }
        return got;
    }

    @Test
    void shouldRoundTripATenantsMessagesUnderItsNamespace() throws Exception {
        final String topic = unique("orders");
        final Producer producer = clients.producer(alice(), topic);
        final List<String> sent = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            send(producer, topic, "order-" + i);
            sent.add("order-" + i);
        }
        final SimpleConsumer consumer = clients.simpleConsumer(alice(), unique("billing"), topic);
        final List<MessageView> got = GrpcClients.drain(consumer, 10, Duration.ofSeconds(30));
        assertThat(got).extracting(GrpcClients::body).containsExactlyInAnyOrderElementsOf(sent);
        // the client sees its own name back, not the core name
        assertThat(got).extracting(MessageView::getTopic).containsOnly(topic);
        assertThat(consumer.receive(32, Duration.ofSeconds(30))).isEmpty();
        // in the core the topic is acme%<topic>: a super user without a namespace finds exactly those messages there
        assertThat(everything(root(), "acme%" + topic, 10, Duration.ofSeconds(30)))
                .containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    void shouldRefuseBadOrMissingCredentialsWithUnauthorizedAndStoreNothing() throws Exception {
        final String topic = unique("orders");
        for (ClientConfiguration bad : List.of(clients.configuration("acme", "alice", "not-her-secret"),
                clients.configuration("acme", "mallory", "alice-secret"),
                clients.configuration("acme", null, null))) {
            final Producer producer = clients.producer(bad);
            assertThatThrownBy(() -> send(producer, topic, "sneaky"))
                    .hasStackTraceContaining(Integer.toString(Code.UNAUTHORIZED_VALUE));
            assertThatThrownBy(() -> clients.simpleConsumer(bad, unique("g"), topic)).isInstanceOf(Exception.class);
        }
        assertThat(everything(root(), "acme%" + topic, 0, Duration.ZERO)).isEmpty();
    }

    @Test
    void shouldKeepAnotherTenantOutOfAcmesTopicHoweverItNamesIt() throws Exception {
        final String topic = unique("orders");
        final Producer acme = clients.producer(alice(), topic);
        for (int i = 0; i < 5; i++) {
            send(acme, topic, "acme-" + i);
        }
        final ClientConfiguration ginaAsAcme = clients.configuration("acme", "gina", "gina-secret");
        final ClientConfiguration ginaPlain = clients.configuration("", "gina", "gina-secret");
        final ClientConfiguration gina = clients.configuration("globex", "gina", "gina-secret");
        // claiming acme's namespace, or naming the core name from no namespace: refused both ways
        assertThatThrownBy(() -> send(clients.producer(ginaAsAcme), topic, "intruder-1"))
                .hasStackTraceContaining(Integer.toString(Code.FORBIDDEN_VALUE));
        assertThatThrownBy(() -> send(clients.producer(ginaPlain), "acme%" + topic, "intruder-2"))
                .hasStackTraceContaining(Integer.toString(Code.FORBIDDEN_VALUE));
        assertThatThrownBy(() -> clients.simpleConsumer(ginaAsAcme, unique("g"), topic))
                .isInstanceOf(Exception.class);
        assertThatThrownBy(() -> clients.simpleConsumer(ginaPlain, unique("g"), "acme%" + topic))
                .isInstanceOf(Exception.class);
        // from her own namespace, "acme%<topic>" is globex's own topic globex%acme%<topic>: it never reaches acme's
        send(clients.producer(gina), "acme%" + topic, "globex-own");
        assertThat(everything(gina, "acme%" + topic, 1, Duration.ofSeconds(30))).containsExactly("globex-own");
        // acme's topic holds acme's five messages and nothing else
        assertThat(everything(alice(), topic, 5, Duration.ofSeconds(30)))
                .containsExactlyInAnyOrder("acme-0", "acme-1", "acme-2", "acme-3", "acme-4");
    }

    @Test
    void shouldNotLetTheNamespaceHeaderAndTheResourceDisagreeIntoAnotherTenant() throws Exception {
        final String topic = unique("orders");
        final Resource acmeTopic = Resource.newBuilder().setResourceNamespace("acme").setName(topic).build();
        final Metadata headers = signed("gina", "gina-secret", now(ZoneId.systemDefault()));
        headers.put(Metadata.Key.of("x-mq-namespace", Metadata.ASCII_STRING_MARSHALLER), "globex");
        final ManagedChannel channel = channel();
        try {
            final MessagingServiceGrpc.MessagingServiceBlockingStub stub = stub(channel, headers);
            assertThat(stub.queryRoute(QueryRouteRequest.newBuilder().setTopic(acmeTopic).build())
                    .getStatus().getCode()).isEqualTo(Code.FORBIDDEN);
            assertThat(stub.sendMessage(SendMessageRequest.newBuilder().addMessages(Message.newBuilder()
                    .setTopic(acmeTopic).setBody(org.apache.rocketmq.shaded.com.google.protobuf.ByteString.copyFromUtf8("x"))
                    .setSystemProperties(SystemProperties.newBuilder().setMessageId(unique("id")))).build())
                    .getStatus().getCode()).isEqualTo(Code.FORBIDDEN);
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        assertThat(everything(root(), "acme%" + topic, 0, Duration.ZERO)).isEmpty();
    }

    @Test
    void shouldLetADenyRuleOverrideTheTopicWildcard() throws Exception {
        final Producer producer = clients.producer(alice());
        assertThatThrownBy(() -> send(producer, PAYROLL, "raise"))
                .hasStackTraceContaining(Integer.toString(Code.FORBIDDEN_VALUE));
        assertThatThrownBy(() -> clients.simpleConsumer(alice(), unique("g"), PAYROLL)).isInstanceOf(Exception.class);
        final String other = unique("orders");
        send(producer, other, "fine"); // the same client may still use what the wildcard allows
        assertThat(everything(alice(), other, 1, Duration.ofSeconds(30))).containsExactly("fine");
        assertThat(everything(root(), "acme%" + PAYROLL, 0, Duration.ZERO)).isEmpty();
    }

    @Test
    void shouldRefuseACorrectlySignedButExpiredDateAndAcceptAFreshOne() throws Exception {
        final String topic = unique("orders");
        final QueryRouteRequest route = QueryRouteRequest.newBuilder()
                .setTopic(Resource.newBuilder().setResourceNamespace("acme").setName(topic)).build();
        final String threeDaysAgo = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                .withZone(ZoneId.systemDefault()).format(Instant.now().minus(Duration.ofDays(3)));
        final ManagedChannel channel = channel();
        try {
            assertThat(stub(channel, signed("alice", "alice-secret", threeDaysAgo)).queryRoute(route)
                    .getStatus().getCode()).isEqualTo(Code.UNAUTHORIZED);
            // a client far east of the broker signs a date many hours "ahead": still its present
            assertThat(stub(channel, signed("alice", "alice-secret", now(ZoneId.of("Pacific/Kiritimati"))))
                    .queryRoute(route).getStatus().getCode()).isEqualTo(Code.OK);
            assertThat(stub(channel, signed("alice", "alice-secret", now(ZoneId.of("Etc/GMT+12"))))
                    .queryRoute(route).getStatus().getCode()).isEqualTo(Code.OK);
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldLetOnlyTheTenantEndItsTransaction() throws Exception {
        final String topic = unique("ledger");
        final Producer producer = clients.track(PROVIDER.newProducerBuilder().setClientConfiguration(alice())
                .setTopics(topic).setTransactionChecker(v -> TransactionResolution.UNKNOWN).build());
        final SimpleConsumer consumer = clients.simpleConsumer(alice(), unique("g"), topic);
        final Transaction tx = producer.beginTransaction();
        final String id = producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(utf8("entry")).build(),
                tx).getMessageId().toString();
        final ManagedChannel channel = channel();
        try {
            final MessagingServiceGrpc.MessagingServiceBlockingStub gina =
                    stub(channel, signed("gina", "gina-secret", now(ZoneId.systemDefault())));
            // naming acme's topic is forbidden; naming her own topic ends nothing of acme's
            assertThat(gina.endTransaction(end(Resource.newBuilder().setResourceNamespace("acme").setName(topic), id))
                    .getStatus().getCode()).isEqualTo(Code.FORBIDDEN);
            assertThat(gina.endTransaction(end(Resource.newBuilder().setResourceNamespace("globex").setName(topic),
                    id)).getStatus().getCode()).isNotEqualTo(Code.OK);
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        assertThat(consumer.receive(16, Duration.ofSeconds(30))).isEmpty();
        tx.commit();
        assertThat(GrpcClients.drain(consumer, 1, Duration.ofSeconds(30))).extracting(GrpcClients::body)
                .containsExactly("entry");
    }

    // ------------------------------------------------------------------------------------------ live rule changes

    /** A call of the HTTP admin API as root. */
    private static int admin(final String method, final String path, final String body) throws Exception {
        final HttpRequest request = HttpRequest.newBuilder(URI.create(broker.httpBase() + path))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        "root:root-pw".getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** Sets the rules of {@code user}: each entry {@code Resource=ACTION,ACTION} allows those actions. */
    private static void rules(final String user, final String... entries) throws Exception {
        final List<String> json = new ArrayList<>();
        for (final String e : entries) {
            final String[] parts = e.split("=");
            json.add("{\"resource\":\"" + parts[0] + "\",\"actions\":[\"" + String.join("\",\"",
                    parts[1].split(",")) + "\"]}");
        }
        assertThat(admin("PUT", "/admin/users/" + user + "/acl", "{\"rules\":[" + String.join(",", json) + "]}"))
                .isEqualTo(200);
    }

    /** A new user of tenant acme, signing secret {@code <name>-secret}, allowed PUB and SUB on every topic. */
    private static String liveUser() throws Exception {
        final String user = unique("grace");
        assertThat(admin("PUT", "/admin/users/" + user, "{\"namespace\":\"acme\",\"secret\":\"" + user
                + "-secret\"}")).isEqualTo(201);
        rules(user, "Topic:*=PUB,SUB", "Group:*=SUB");
        return user;
    }

    @Test
    void shouldForbidAProducersNextSendOnceItsPubIsTakenAwayAndSendOnceItIsBack() throws Exception {
        final String user = liveUser();
        final String topic = unique("live");
        final Producer producer = clients.producer(clients.configuration("acme", user, user + "-secret"), topic);
        send(producer, topic, "before");
        rules(user, "Topic:*=SUB", "Group:*=SUB");
        assertThatThrownBy(() -> send(producer, topic, "refused"))
                .hasStackTraceContaining(Integer.toString(Code.FORBIDDEN_VALUE));
        rules(user, "Topic:*=PUB,SUB", "Group:*=SUB");
        send(producer, topic, "after");
        assertThat(everything(alice(), topic, 2, Duration.ofSeconds(30))).containsExactlyInAnyOrder("before",
                "after");
    }

    @Test
    void shouldGiveAWaitingPushConsumerNothingOnceItsSubIsTakenAwayAndTheRestOnceItIsBack() throws Exception {
        final String user = liveUser();
        final String topic = unique("live");
        final ClientConfiguration grace = clients.configuration("acme", user, user + "-secret");
        final Producer producer = clients.producer(alice(), topic);
        send(producer, topic, "m-0"); // the topic exists before the consumer's group starts reading it
        final List<String> got = new CopyOnWriteArrayList<>();
        clients.track(PROVIDER.newPushConsumerBuilder().setClientConfiguration(grace)
                .setConsumerGroup(unique("live-g"))
                .setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL))
                .setMessageListener(view -> {
                    got.add(body(view));
                    return ConsumeResult.SUCCESS;
                }).build());
        send(producer, topic, "m-1");
        await().atMost(Duration.ofSeconds(30)).until(() -> got.contains("m-1"));

        // SUB taken away while the consumer's next receive waits in the broker for messages
        final double before = AuditCounts.denials(broker, "TOPIC", "SUB");
        rules(user, "Topic:*=PUB", "Group:*=SUB");
        send(producer, topic, "m-2");
        // the waiting receive woke with m-2 and was decided again: refused (counted), nothing handed over
        await().atMost(Duration.ofSeconds(30)).until(() -> AuditCounts.denials(broker, "TOPIC", "SUB") > before);
        assertThat(got).doesNotContain("m-2");

        rules(user, "Topic:*=PUB,SUB", "Group:*=SUB");
        await().atMost(Duration.ofSeconds(60)).until(() -> got.contains("m-2"));
        assertThat(got).containsOnlyOnce("m-1", "m-2");
    }

    @Test
    void shouldForbidAPullThatWaitedWhileItsSubWasTakenAwayAndServeItOnceItIsBack() throws Exception {
        final String user = liveUser();
        final String topic = unique("live-pull");
        final Producer producer = clients.producer(alice(), topic);
        final apache.rocketmq.v2.Resource acmeTopic = apache.rocketmq.v2.Resource.newBuilder()
                .setResourceNamespace("acme").setName(topic).build();
        final apache.rocketmq.v2.PullMessageRequest pull = apache.rocketmq.v2.PullMessageRequest.newBuilder()
                .setGroup(apache.rocketmq.v2.Resource.newBuilder().setResourceNamespace("acme")
                        .setName(unique("live-pull-g")))
                .setMessageQueue(apache.rocketmq.v2.MessageQueue.newBuilder().setTopic(acmeTopic).setId(0))
                .setOffset(0).setBatchSize(32)
                .setLongPollingTimeout(org.apache.rocketmq.shaded.com.google.protobuf.util.Durations.fromMillis(20_000))
                .build();
        send(producer, topic, "p-0"); // creates the topic (4 queues)
        try (GrpcStubs grace = new GrpcStubs(broker, user, user + "-secret")) {
            // p-0 may have gone to another queue: this pull must not wait the long poll out for it.
            final GrpcStubs.Pulled first = grace.pull(pull.toBuilder().setLongPollingTimeout(
                    org.apache.rocketmq.shaded.com.google.protobuf.util.Durations.fromMillis(500)).build(),
                    Duration.ofSeconds(40));
            assertThat(first.status().getCode()).isIn(Code.OK, Code.MESSAGE_NOT_FOUND);
            final apache.rocketmq.v2.PullMessageRequest next = pull.toBuilder().setOffset(first.nextOffset()).build();
            final java.util.concurrent.CompletableFuture<GrpcStubs.Pulled> waiting =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> grace.pull(next, Duration.ofSeconds(40)));
            // Give the pull time to be admitted and park at the queue's end (it cannot be seen from outside).
            await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> !waiting.isDone());
            rules(user, "Topic:*=PUB", "Group:*=SUB");
            for (int i = 1; i <= 4; i++) { // round robin over the 4 queues: one lands in queue 0
                send(producer, topic, "p-" + i);
            }
            final GrpcStubs.Pulled woken = waiting.get(40, TimeUnit.SECONDS);
            assertThat(woken.status().getCode()).isEqualTo(Code.FORBIDDEN);
            assertThat(woken.messages()).isEmpty();

            rules(user, "Topic:*=PUB,SUB", "Group:*=SUB");
            final GrpcStubs.Pulled again = grace.pull(next, Duration.ofSeconds(40));
            assertThat(again.status().getCode()).isEqualTo(Code.OK);
            assertThat(again.bodies()).isNotEmpty().allSatisfy(b -> assertThat(b).startsWith("p-"))
                    .doesNotContain("p-0");
        }
    }

    @Test
    void shouldRefuseADeletedUsersNextCallAsUnauthorizedAtOnce() throws Exception {
        final String user = liveUser();
        final String topic = unique("live");
        final Producer producer = clients.producer(clients.configuration("acme", user, user + "-secret"), topic);
        send(producer, topic, "before");
        assertThat(admin("DELETE", "/admin/users/" + user, null)).isEqualTo(200);
        // not a verification remembered from the last call: the user is gone, so its credentials are refused
        assertThatThrownBy(() -> send(producer, topic, "after"))
                .hasStackTraceContaining(Integer.toString(Code.UNAUTHORIZED_VALUE));
        assertThat(everything(alice(), topic, 1, Duration.ofSeconds(30))).containsExactly("before");
    }

    private static EndTransactionRequest end(final Resource.Builder topic, final String messageId) {
        return EndTransactionRequest.newBuilder().setTopic(topic).setMessageId(messageId).setTransactionId(messageId)
                .setResolution(apache.rocketmq.v2.TransactionResolution.COMMIT)
                .setSource(TransactionSource.SOURCE_CLIENT).build();
    }

    // ------------------------------------------------------------------------------------------ raw calls

    private ManagedChannel channel() {
        return NettyChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(broker.setting("grpc.port")))
                .usePlaintext().build();
    }

    private static MessagingServiceGrpc.MessagingServiceBlockingStub stub(final ManagedChannel channel,
                                                                          final Metadata headers) {
        return MessagingServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                .withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    private static String now(final ZoneId zone) {
        return DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(zone).format(Instant.now());
    }

    /** The headers rocketmq-client-java sends, signed as it signs (HMAC-SHA1 of the date, upper-case hex). */
    private static Metadata signed(final String user, final String secret, final String dateTime) throws Exception {
        final Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
        final String signature = HexFormat.of().withUpperCase()
                .formatHex(mac.doFinal(dateTime.getBytes(StandardCharsets.UTF_8)));
        final Metadata h = new Metadata();
        h.put(Metadata.Key.of("x-mq-client-id", Metadata.ASCII_STRING_MARSHALLER), unique("raw-client"));
        h.put(Metadata.Key.of("x-mq-date-time", Metadata.ASCII_STRING_MARSHALLER), dateTime);
        h.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "MQv2-HMAC-SHA1 Credential="
                + user + ", SignedHeaders=x-mq-date-time, Signature=" + signature);
        return h;
    }
}
