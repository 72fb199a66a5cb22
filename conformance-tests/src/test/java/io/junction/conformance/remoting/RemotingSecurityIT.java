package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.AuditCounts;
import io.junction.conformance.support.DataDirSeed;
import io.junction.conformance.support.RemotingClientShutdown;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import io.junction.tenancy.AclRule;
import io.junction.tenancy.SecretCipher;
import io.junction.tenancy.UserDirectory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.protocol.body.AclInfo;
import org.apache.rocketmq.remoting.protocol.body.UserInfo;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Security on the Remoting port with the real 5.3.3 client: signatures from {@code AclClientRPCHook}, namespaces set
 * with {@code setNamespace}, ACL rules, and the ACL 2.0 admin codes from {@code DefaultMQAdminExt}.
 */
// The refusal tests fail on purpose many times from 127.0.0.1: security.max-failures keeps the host from lockout.
@WithBroker(settings = {"security.enabled=true", "security.secret-key=" + RemotingSecurityIT.KEY,
        "security.max-failures=1000"}, seed = RemotingSecurityIT.Users.class)
class RemotingSecurityIT {
    static final String KEY = "remoting-it-key";
    private static final int NO_PERMISSION = 16;
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    /** How long a refused consumer is given to (not) receive anything. */
    /** How long a read that must find nothing waits. */
    private static final Duration QUIET = Duration.ofSeconds(2);
    /** How long a read goes on after the expected count arrived, to catch one too many. */
    private static final Duration SETTLE = Duration.ofSeconds(1);

    private static RunningBroker broker;
    private static final List<Runnable> CLOSE = new ArrayList<>();

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
            users.putUser("root", "default", true, true, "root-pw", "root-secret");
            users.putUser("alice", "acme", false, true, "alice-pw", "alice-secret");
            users.setRules("alice", List.of(AclRule.parse("Topic:*", List.of("PUB", "SUB"), "ALLOW"),
                    AclRule.parse("Topic:blocked", List.of("PUB"), "DENY"),
                    AclRule.parse("Group:*", List.of("SUB"), "ALLOW")));
            users.putUser("gary", "globex", false, true, "gary-pw", "gary-secret");
            users.setRules("gary", List.of(AclRule.parse("Topic:*", List.of("PUB", "SUB"), "ALLOW"),
                    AclRule.parse("Group:*", List.of("SUB"), "ALLOW")));
            users.putUser("dave", "acme", false, false, "dave-pw", "dave-secret");
            users.setRules("dave", List.of(AclRule.parse("*", List.of("ALL"), "ALLOW")));
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        // Side by side: each client is a client instance of its own, and a RocketMQ client's shutdown unregisters
        // from the broker and stops its threads one after another; the class's 30-odd clients one at a time add up.
        final ExecutorService closing = Executors.newFixedThreadPool(8);
        CLOSE.forEach(closing::execute);
        closing.shutdown();
        assertThat(closing.awaitTermination(60, TimeUnit.SECONDS)).as("every client shut down").isTrue();
    }

    private static RPCHook hook(final String user, final String secret) {
        return new AclClientRPCHook(new SessionCredentials(user, secret));
    }

    private static DefaultMQProducer producer(final RPCHook hook, final String namespace) throws MQClientException {
        final DefaultMQProducer producer = hook == null ? new DefaultMQProducer(Names.unique("pg"))
                : new DefaultMQProducer(Names.unique("pg"), hook);
        if (namespace != null) {
            producer.setNamespace(namespace);
        }
        producer.setNamesrvAddr(broker.nameServer());
        producer.setInstanceName(Names.unique("p"));
        producer.setSendMsgTimeout(5000);
        producer.setRetryTimesWhenSendFailed(0);
        producer.start();
        CLOSE.add(producer::shutdown);
        return producer;
    }

    private static Message message(final String topic, final int i) {
        return new Message(topic, "T", ("m-" + i).getBytes(StandardCharsets.UTF_8));
    }

    /** Everything in a topic from its first offset, read as {@code user} with a fresh lite-pull group. */
    private static List<MessageExt> drain(final RPCHook hook, final String namespace, final String topic,
                                          final int expected, final Duration deadline) throws MQClientException {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer(Names.unique("drain"), hook);
        if (namespace != null) {
            consumer.setNamespace(namespace);
        }
        consumer.setNamesrvAddr(broker.nameServer());
        consumer.setInstanceName(Names.unique("c"));
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.start();
        try {
            final List<MessageExt> out = new ArrayList<>();
            long end = System.nanoTime() + deadline.toNanos();
            boolean settling = false;
            while (System.nanoTime() < end) {
                out.addAll(consumer.poll(300));
                if (!settling && expected >= 0 && out.size() >= expected) {
                    // The expected count arrived: keep reading a little to see any message too many.
                    settling = true;
                    end = Math.min(end, System.nanoTime() + SETTLE.toNanos());
                }
            }
            return out;
        } finally {
            // A group of its own that nothing reads again: the test need not wait for the client's idle last step.
            RemotingClientShutdown.inBackground(consumer::shutdown);
        }
    }

    /**
     * The super user's count of a core topic: until {@code expected} arrived (and {@link #SETTLE} more) or
     * {@code deadline} passed.
     */
    private static int rootCount(final String coreTopic, final int expected, final Duration deadline)
            throws MQClientException {
        return drain(hook("root", "root-secret"), null, coreTopic, expected, deadline).size();
    }

    @Test
    void aSignedTenantRoundTripsThroughItsNamespace() throws Exception {
        final String topic = Names.unique("orders");
        final DefaultMQProducer producer = producer(hook("alice", "alice-secret"), "acme");
        for (int i = 0; i < 20; i++) {
            final SendResult r = producer.send(message(topic, i));
            assertThat(r.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
        }

        final Map<String, MessageExt> received = new ConcurrentHashMap<>();
        final DefaultMQPushConsumer push = new DefaultMQPushConsumer(Names.unique("cg"),
                hook("alice", "alice-secret"));
        push.setNamespace("acme");
        push.setNamesrvAddr(broker.nameServer());
        push.setInstanceName(Names.unique("c"));
        push.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        push.subscribe(topic, "*");
        push.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> received.put(m.getMsgId(), m));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        push.start();
        CLOSE.add(push::shutdown);
        await().atMost(DEADLINE).until(() -> received.size() >= 20);
        assertThat(received).hasSize(20);
        assertThat(received.values()).allSatisfy(m -> assertThat(m.getTopic()).isEqualTo(topic));

        final List<MessageExt> pulled = drain(hook("alice", "alice-secret"), "acme", topic, 20, DEADLINE);
        assertThat(pulled).hasSize(20);
        // Stored under the tenant's core name: the super user sees acme%<topic>.
        assertThat(rootCount("acme%" + topic, 20, DEADLINE)).isEqualTo(20);
    }

    @Test
    void unsignedWrongSecretUnknownAndDisabledClientsAreRefusedAndStoreNothing() throws Exception {
        final String topic = Names.unique("ledger");
        producer(hook("alice", "alice-secret"), "acme").send(message(topic, 0));
        final String core = "acme%" + topic;

        final Map<String, RPCHook> refused = new java.util.LinkedHashMap<>();
        refused.put("unsigned", null);
        refused.put("wrong secret", hook("alice", "not-alices-secret"));
        refused.put("unknown user", hook("mallory", "whatever"));
        refused.put("disabled user", hook("dave", "dave-secret"));
        for (Map.Entry<String, RPCHook> e : refused.entrySet()) {
            final DefaultMQProducer p = producer(e.getValue(), null);
            // The route query is the first request a producer makes: refused with NO_PERMISSION.
            assertThatThrownBy(() -> p.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl()
                    .getTopicRouteInfoFromNameServer(core, 3000))
                    .as(e.getKey()).isInstanceOfSatisfying(MQClientException.class,
                            ex -> assertThat(ex.getResponseCode()).isEqualTo(NO_PERMISSION));
            assertThatThrownBy(() -> p.send(message(core, 1))).as(e.getKey()).isInstanceOf(MQClientException.class);
        }
        assertThat(rootCount(core, 1, DEADLINE)).as("only alice's message").isEqualTo(1);
    }

    @Test
    void anotherTenantCannotSendToOrConsumeFromAcme() throws Exception {
        final String topic = Names.unique("shared-name");
        producer(hook("alice", "alice-secret"), "acme").send(message(topic, 0));
        final String core = "acme%" + topic;

        // gary's own namespace: the same short name is globex's topic, a different one.
        final DefaultMQProducer own = producer(hook("gary", "gary-secret"), "globex");
        assertThat(own.send(message(topic, 1)).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
        // Pre-wrapped acme name without a namespace, and claiming acme's namespace: both refused.
        final DefaultMQProducer raw = producer(hook("gary", "gary-secret"), null);
        assertThatThrownBy(() -> raw.send(message(core, 2))).isInstanceOf(MQClientException.class);
        final DefaultMQProducer claiming = producer(hook("gary", "gary-secret"), "acme");
        assertThatThrownBy(() -> claiming.send(message(topic, 3))).isInstanceOf(MQClientException.class);

        // Nor can gary read acme's topic, pre-wrapped or by claiming the namespace.
        assertThat(drain(hook("gary", "gary-secret"), null, core, -1, QUIET)).isEmpty();
        assertThat(drain(hook("gary", "gary-secret"), "acme", topic, -1, QUIET)).isEmpty();
        // His own topic holds exactly his one message, acme's exactly alice's.
        assertThat(drain(hook("gary", "gary-secret"), "globex", topic, 1, DEADLINE)).hasSize(1);
        assertThat(rootCount(core, 1, DEADLINE)).isEqualTo(1);
        assertThat(rootCount("globex%" + topic, 1, DEADLINE)).isEqualTo(1);
    }

    @Test
    void aTenantsTransactionsCommitRollBackAndAreCheckedBack() throws Exception {
        final String topic = Names.unique("tx");
        producer(hook("alice", "alice-secret"), "acme").send(message(topic, 0)); // the topic exists
        final List<String> checked = java.util.Collections.synchronizedList(new ArrayList<>());
        final TransactionMQProducer tx = new TransactionMQProducer(Names.unique("txg"),
                hook("alice", "alice-secret"));
        tx.setNamespace("acme");
        tx.setNamesrvAddr(broker.nameServer());
        tx.setInstanceName(Names.unique("p"));
        tx.setTransactionListener(new TransactionListener() {
            @Override
            public LocalTransactionState executeLocalTransaction(final Message msg, final Object arg) {
                return switch (new String(msg.getBody(), StandardCharsets.UTF_8)) {
                    case "commit" -> LocalTransactionState.COMMIT_MESSAGE;
                    case "rollback" -> LocalTransactionState.ROLLBACK_MESSAGE;
                    default -> LocalTransactionState.UNKNOW;
                };
            }

            @Override
            public LocalTransactionState checkLocalTransaction(final MessageExt msg) {
                checked.add(new String(msg.getBody(), StandardCharsets.UTF_8));
                return LocalTransactionState.COMMIT_MESSAGE;
            }
        });
        tx.start();
        CLOSE.add(tx::shutdown);
        for (String body : new String[] {"commit", "rollback", "unknown"}) {
            final Message m = new Message(topic, "X", body.getBytes(StandardCharsets.UTF_8));
            m.putUserProperty("CHECK_IMMUNITY_TIME_IN_SECONDS", "1");
            assertThat(tx.sendMessageInTransaction(m, null).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
        }
        await().atMost(DEADLINE).until(() -> checked.contains("unknown"));
        final List<MessageExt> got = drain(hook("alice", "alice-secret"), "acme", topic, 3, DEADLINE);
        assertThat(got).extracting(m -> new String(m.getBody(), StandardCharsets.UTF_8))
                .containsExactlyInAnyOrder("m-0", "commit", "unknown");
        assertThat(checked).containsOnly("unknown");
    }

    @Test
    void aDenyRuleOverridesTheTopicWildcard() throws Exception {
        final DefaultMQProducer producer = producer(hook("alice", "alice-secret"), "acme");
        assertThatThrownBy(() -> producer.send(message("blocked", 0))).isInstanceOf(MQClientException.class);
        final String other = Names.unique("open");
        assertThat(producer.send(message(other, 0)).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
        assertThat(rootCount("acme%blocked", -1, QUIET)).isZero();
    }

    @Test
    void adminCommandsAreForSuperUsersAndTheAclCodesGovernPublishing() throws Exception {
        final String addr = broker.nameServer();
        final DefaultMQAdminExt asAlice = admin(hook("alice", "alice-secret"));
        final String aliceTopic = "acme%" + Names.unique("made-by-alice");
        assertNoPermission(() -> asAlice.createAndUpdateTopicConfig(addr, new TopicConfig(aliceTopic, 1, 1)));
        assertNoPermission(() -> asAlice.createUser(addr, "eve", "eve-pw", "Super"));
        assertNoPermission(() -> asAlice.fetchBrokerRuntimeStats(addr));
        assertNoPermission(() -> asAlice.examineBrokerClusterInfo());

        final DefaultMQAdminExt asRoot = admin(hook("root", "root-secret"));
        assertThat(asRoot.getUser(addr, "eve")).as("alice's createUser did nothing").isNull();
        assertThat(asRoot.examineBrokerClusterInfo().getClusterAddrTable()).containsKey("JunctionCluster");
        final String topic = Names.unique("pay");
        asRoot.createAndUpdateTopicConfig(addr, new TopicConfig(topic, 2, 2));
        assertThat(asRoot.fetchAllTopicList().getTopicList()).contains(topic);
        assertThat(asAlice.fetchAllTopicList().getTopicList()).as("filtered to what alice may see")
                .doesNotContain(topic);

        final String carol = Names.unique("carol");
        asRoot.createUser(addr, carol, "carol-pw", "Normal");
        final UserInfo info = asRoot.getUser(addr, carol);
        assertThat(info.getUsername()).isEqualTo(carol);
        assertThat(info.getUserType()).isEqualTo("Normal");

        final DefaultMQProducer asCarol = producer(hook(carol, "carol-pw"), null);
        assertThatThrownBy(() -> asCarol.send(message(topic, 0))).as("no ACL yet").isInstanceOf(
                MQClientException.class);

        asRoot.createAcl(addr, "User:" + carol, List.of("Topic:" + topic), List.of("PUB"), List.of(), "Allow");
        final AclInfo acl = asRoot.getAcl(addr, "User:" + carol);
        assertThat(acl.getPolicies().get(0).getEntries()).singleElement()
                .satisfies(e -> assertThat(e.getResource()).isEqualTo("Topic:" + topic));
        // A fresh client: the refused one above fell back to the auto-create template's route (as the SDK does
        // when a route query fails) and keeps that until its next route refresh.
        final DefaultMQProducer permitted = producer(hook(carol, "carol-pw"), null);
        assertThat(permitted.send(message(topic, 1)).getSendStatus()).isEqualTo(SendStatus.SEND_OK);

        asRoot.deleteAcl(addr, "User:" + carol, "Topic:" + topic);
        assertThatThrownBy(() -> permitted.send(message(topic, 2))).as("ACL deleted").isInstanceOf(
                MQClientException.class);
        assertThat(rootCount(topic, 1, DEADLINE)).as("only the send made while the ACL existed").isEqualTo(1);

        asRoot.deleteUser(addr, carol);
        assertThat(asRoot.getUser(addr, carol)).isNull();
    }

    /** A push consumer of {@code topic} as {@code hook}'s user (default namespace), recording the bodies it gets. */
    private static DefaultMQPushConsumer pushConsumer(final RPCHook hook, final String topic,
                                                      final List<String> bodies) throws MQClientException {
        final DefaultMQPushConsumer push = new DefaultMQPushConsumer(Names.unique("live"), hook);
        push.setNamesrvAddr(broker.nameServer());
        push.setInstanceName(Names.unique("c"));
        push.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        push.subscribe(topic, "*");
        push.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> bodies.add(new String(m.getBody(), StandardCharsets.UTF_8)));
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        push.start();
        CLOSE.add(push::shutdown);
        return push;
    }

    /** A new default-namespace user made with RocketMQ's admin tool, allowed PUB and SUB on {@code topic}. */
    private static String liveUser(final DefaultMQAdminExt asRoot, final String topic) throws Exception {
        final String user = Names.unique("erin");
        asRoot.createUser(broker.nameServer(), user, user + "-pw", "Normal");
        asRoot.createAcl(broker.nameServer(), "User:" + user, List.of("Topic:" + topic), List.of("PUB", "SUB"),
                List.of(), "Allow");
        asRoot.createAcl(broker.nameServer(), "User:" + user, List.of("Group:*"), List.of("SUB"), List.of(),
                "Allow");
        return user;
    }

    @Test
    void aPushConsumerWaitingInALongPollGetsNothingOnceItsSubIsTakenAwayAndTheRestOnceItIsBack() throws Exception {
        final String addr = broker.nameServer();
        final DefaultMQAdminExt asRoot = admin(hook("root", "root-secret"));
        final String topic = Names.unique("live");
        asRoot.createAndUpdateTopicConfig(addr, new TopicConfig(topic, 1, 1));
        final String user = liveUser(asRoot, topic);
        final RPCHook erin = hook(user, user + "-pw"); // RocketMQ's admin tool makes the password the secret too
        final DefaultMQProducer producer = producer(erin, null);
        final List<String> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        pushConsumer(erin, topic, got);
        producer.send(message(topic, 0));
        await().atMost(DEADLINE).until(() -> got.contains("m-0"));

        // SUB taken away while the consumer's next pull waits in the broker for messages; PUB stays.
        final double before = AuditCounts.denials(broker, "TOPIC", "SUB");
        asRoot.updateAcl(addr, "User:" + user, List.of("Topic:" + topic), List.of("PUB"), List.of(), "Allow");
        assertThat(producer.send(message(topic, 1)).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
        // The waiting pull was decided again when SUB went: refused (counted), nothing handed over.
        await().atMost(DEADLINE).until(() -> AuditCounts.denials(broker, "TOPIC", "SUB") > before);
        assertThat(got).containsExactly("m-0");

        asRoot.updateAcl(addr, "User:" + user, List.of("Topic:" + topic), List.of("PUB", "SUB"), List.of(),
                "Allow");
        await().atMost(DEADLINE).until(() -> got.contains("m-1"));
        assertThat(got).containsExactly("m-0", "m-1");
    }

    @Test
    void aDeletedUsersWaitingConsumerAndProducerAreCutOffAtOnce() throws Exception {
        final String addr = broker.nameServer();
        final DefaultMQAdminExt asRoot = admin(hook("root", "root-secret"));
        final String topic = Names.unique("live");
        asRoot.createAndUpdateTopicConfig(addr, new TopicConfig(topic, 1, 1));
        final String user = liveUser(asRoot, topic);
        final RPCHook erin = hook(user, user + "-pw");
        final DefaultMQProducer producer = producer(erin, null);
        final List<String> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        pushConsumer(erin, topic, got);
        producer.send(message(topic, 0));
        await().atMost(DEADLINE).until(() -> got.contains("m-0"));

        final double before = AuditCounts.authFailures(broker, "remoting");
        final long deleted = System.nanoTime();
        asRoot.deleteUser(addr, user);
        // Right after the deletion, on the producer's open connection: refused, never a broken connection.
        assertNoPermission(() -> producer.send(message(topic, 1)));
        producer(hook("root", "root-secret"), null).send(message(topic, 2));
        // The consumer's waiting pull was answered NO_PERMISSION at once (not after its 15 s long poll); its client
        // tries again 3 s later, and is refused.
        await().atMost(DEADLINE).until(() -> AuditCounts.authFailures(broker, "remoting") > before + 1);
        assertThat(Duration.ofNanos(System.nanoTime() - deleted)).as("refused retry well before the poll's 15 s")
                .isLessThan(Duration.ofSeconds(12));
        assertThat(got).containsExactly("m-0");
        assertThat(rootCount(topic, 2, DEADLINE)).as("m-0 and root's m-2; erin's m-1 refused").isEqualTo(2);
    }

    @Test
    void aPullWaitingInTheBrokerIsRefusedAtOnceWhenItsUserLosesSubOrIsDeleted() throws Exception {
        final String addr = broker.nameServer();
        final DefaultMQAdminExt asRoot = admin(hook("root", "root-secret"));
        final String topic = Names.unique("live");
        asRoot.createAndUpdateTopicConfig(addr, new TopicConfig(topic, 1, 1));
        final String user = liveUser(asRoot, topic);
        final MessageQueue queue = new MessageQueue(topic, "junction", 0); // the default broker name

        final CompletableFuture<Object> first = waitingPull(hook(user, user + "-pw"), queue);
        final long subTaken = System.nanoTime();
        asRoot.updateAcl(addr, "User:" + user, List.of("Topic:" + topic), List.of("PUB"), List.of(), "Allow");
        assertRefusedWithin(first, subTaken);

        asRoot.updateAcl(addr, "User:" + user, List.of("Topic:" + topic), List.of("PUB", "SUB"), List.of(),
                "Allow");
        final CompletableFuture<Object> second = waitingPull(hook(user, user + "-pw"), queue);
        final long deleted = System.nanoTime();
        asRoot.deleteUser(addr, user);
        assertRefusedWithin(second, deleted);
    }

    /**
     * A pull of the empty {@code queue} by a consumer of its own, started on another thread; it waits in the broker
     * (up to the client's 20 s suspend) and completes with what the pull threw, or its result.
     */
    @SuppressWarnings("deprecation") // DefaultMQPullConsumer: the client's own blocking pull, still in 5.3.3
    private static CompletableFuture<Object> waitingPull(final RPCHook hook, final MessageQueue queue)
            throws MQClientException {
        final DefaultMQPullConsumer pull = new DefaultMQPullConsumer(Names.unique("live"), hook);
        pull.setNamesrvAddr(broker.nameServer());
        pull.setInstanceName(Names.unique("pull"));
        pull.start();
        CLOSE.add(pull::shutdown);
        final CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                return pull.pullBlockIfNotFound(queue, "*", 0, 1);
            } catch (Exception e) {
                return e;
            }
        });
        // Still waiting after a second: parked in the broker (the queue is empty).
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> !outcome.isDone());
        return outcome;
    }

    private static void assertRefusedWithin(final CompletableFuture<Object> pull, final long changedAt)
            throws Exception {
        final Object outcome = pull.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - changedAt)).as("answered at the change, not after its 20 s wait")
                .isLessThan(Duration.ofSeconds(5));
        assertThat(outcome).isInstanceOfSatisfying(MQBrokerException.class,
                e -> assertThat(e.getResponseCode()).isEqualTo(NO_PERMISSION));
    }

    /** The call was refused with NO_PERMISSION (the admin API reports it as a broker or a client exception). */
    private static void assertNoPermission(final org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).satisfies(ex -> assertThat(ex instanceof MQBrokerException b ? b.getResponseCode()
                : ex instanceof MQClientException c ? c.getResponseCode() : -1).isEqualTo(NO_PERMISSION));
    }

    private static DefaultMQAdminExt admin(final RPCHook hook) throws MQClientException {
        final DefaultMQAdminExt admin = new DefaultMQAdminExt(hook);
        admin.setNamesrvAddr(broker.nameServer());
        admin.setInstanceName(Names.unique("admin"));
        admin.start();
        CLOSE.add(admin::shutdown);
        return admin;
    }
}
