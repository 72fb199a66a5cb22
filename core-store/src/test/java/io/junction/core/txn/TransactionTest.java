package io.junction.core.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.PopRequest;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.SystemNames;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.TestStores;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class TransactionTest {
    private static final long INTERVAL = 60_000;
    private static final String TOPIC = "orders";
    private static final String PRODUCER_GROUP = "pg";
    private static final String REPLAY_GROUP = "CID_SYS_RMQ_TRANS";

    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final List<Check> checks = new CopyOnWriteArrayList<>();

    private record Check(String producerGroup, StoredMessage half, int checkTimes) {
    }

    private StoreConfig.Builder config() {
        return TestStores.small(dir).transactionFirstCheck(Duration.ofMillis(INTERVAL))
                .transactionCheckInterval(Duration.ofMillis(INTERVAL));
    }

    private final io.junction.core.txn.TransactionChecker recorder =
            (group, half, times) -> checks.add(new Check(group, half, times));

    private MessageStore open(final StoreConfig config) {
        final MessageStore store = MessageStore.open(config, now::get, MappedSegmentFile.FACTORY);
        store.addTransactionChecker(recorder);
        return store;
    }

    private MessageStore openWithTopic() {
        final MessageStore store = open(config().build());
        store.topics().createOrUpdate(TopicConfig.of(TOPIC, 4)).join();
        return store;
    }

    private static Message.Builder half(final String body) {
        return Message.builder(TOPIC).tag("tagA").keys("key-" + body).property("color", "red")
                .property(MessageProperties.TRANSACTION_PREPARED, "true")
                .property(MessageProperties.PRODUCER_GROUP, PRODUCER_GROUP)
                .body(body.getBytes(StandardCharsets.UTF_8));
    }

    private static SendResult sendHalf(final MessageStore store, final String body) {
        return store.send(half(body).build()).join();
    }

    private static void end(final MessageStore store, final SendResult half, final TransactionResolution resolution) {
        store.endTransaction(TransactionEnd.byOffset(PRODUCER_GROUP, half.commitLogOffset(), half.uniqueId(),
                resolution)).join();
    }

    /** Every message of the topic, all queues. */
    private static List<StoredMessage> delivered(final MessageStore store) {
        TestStores.awaitIndexed(store);
        final List<StoredMessage> all = new ArrayList<>();
        for (int q = 0; q < 4; q++) {
            all.addAll(TestStores.readAll(store, TOPIC, q));
        }
        return all;
    }

    private static StoreError errorOf(final Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            return StoreException.errorOf(e);
        }
        throw new AssertionError("expected a failure");
    }

    @Test
    void shouldKeepAHalfMessageInvisibleToPullAndPopUntilCommitted() {
        try (MessageStore store = openWithTopic()) {
            final SendResult r = sendHalf(store, "one");
            assertThat(r.topic()).isEqualTo(TOPIC);
            assertThat(r.queueId()).isBetween(0, 3);
            assertThat(r.uniqueId()).isNotBlank();
            assertThat(delivered(store)).isEmpty();
            assertThat(store.pop(new PopRequest("g", TOPIC, null, 32, 30_000, 0)).join().messages()).isEmpty();
            assertThat(store.pendingTransactions()).isEqualTo(1);

            end(store, r, TransactionResolution.COMMIT);

            final List<StoredMessage> all = delivered(store);
            assertThat(all).hasSize(1);
            final StoredMessage m = all.get(0);
            assertThat(m.queueId()).isEqualTo(r.queueId());
            assertThat(m.uniqueId()).isEqualTo(r.uniqueId());
            assertThat(TestStores.body(m)).isEqualTo("one");
            assertThat(m.tag()).isEqualTo("tagA");
            assertThat(m.keys()).isEqualTo("key-one");
            assertThat(m.properties()).containsEntry("color", "red")
                    .containsEntry(MessageProperties.PRODUCER_GROUP, PRODUCER_GROUP)
                    .doesNotContainKeys(MessageProperties.TRANSACTION_PREPARED, MessageProperties.REAL_TOPIC,
                            MessageProperties.REAL_QUEUE_ID);
            assertThat(m.sysFlag() & 0xC).isEqualTo(0x8);
            assertThat(store.pop(new PopRequest("g", TOPIC, null, 32, 30_000, 0)).join().messages())
                    .extracting(p -> p.message().uniqueId()).containsExactly(r.uniqueId());
            assertThat(store.pendingTransactions()).isZero();
        }
    }

    @Test
    void shouldTreatThePreparedSysFlagAsAHalfMessageAndCommitByIdAndTransactionId() {
        try (MessageStore store = openWithTopic()) {
            final Message m = Message.builder(TOPIC).sysFlag(0x4).property(MessageProperties.TRANSACTION_ID, "tx-1")
                    .body("grpc".getBytes(StandardCharsets.UTF_8)).build();
            final SendResult r = store.send(m).join();
            assertThat(delivered(store)).isEmpty();

            store.endTransaction(TransactionEnd.byId(r.uniqueId(), "tx-1", TransactionResolution.COMMIT)).join();

            assertThat(delivered(store)).extracting(StoredMessage::uniqueId).containsExactly(r.uniqueId());
            assertThat(delivered(store).get(0).property(MessageProperties.TRANSACTION_ID)).isEqualTo("tx-1");
        }
    }

    @Test
    void shouldFindAHalfMessageByTransactionIdAlone() {
        try (MessageStore store = openWithTopic()) {
            final SendResult r = store.send(half("x").property(MessageProperties.TRANSACTION_ID, "tx-9").build())
                    .join();
            store.endTransaction(TransactionEnd.byId(null, "tx-9", TransactionResolution.COMMIT)).join();
            assertThat(delivered(store)).extracting(StoredMessage::uniqueId).containsExactly(r.uniqueId());
        }
    }

    @Test
    void shouldNeverDeliverARolledBackMessage() {
        try (MessageStore store = openWithTopic()) {
            final SendResult r = sendHalf(store, "gone");
            end(store, r, TransactionResolution.ROLLBACK);
            now.addAndGet(100 * INTERVAL);
            store.checkTransactionsNow();
            assertThat(checks).isEmpty();
            assertThat(delivered(store)).isEmpty();
            assertThat(store.pendingTransactions()).isZero();
        }
    }

    @Test
    void shouldRefuseASecondEndAndAnUnknownOneWithoutChangingState() {
        try (MessageStore store = openWithTopic()) {
            final SendResult committed = sendHalf(store, "a");
            final SendResult other = sendHalf(store, "b");
            end(store, committed, TransactionResolution.COMMIT);

            // The same commit again (a lost response retried), and a rollback after the commit.
            assertThat(errorOf(() -> end(store, committed, TransactionResolution.COMMIT)))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(errorOf(() -> end(store, committed, TransactionResolution.ROLLBACK)))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            // Unknown half messages, by offset and by id.
            assertThatThrownBy(() -> store.endTransaction(TransactionEnd.byOffset(PRODUCER_GROUP, 12_345, null,
                    TransactionResolution.COMMIT)).join()).hasMessageContaining("no unresolved half message");
            assertThat(errorOf(() -> store.endTransaction(TransactionEnd.byId("NOPE", null,
                    TransactionResolution.ROLLBACK)).join())).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            // A mismatching producer group or message id.
            assertThat(errorOf(() -> store.endTransaction(TransactionEnd.byOffset("other-group",
                    other.commitLogOffset(), other.uniqueId(), TransactionResolution.COMMIT)).join()))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(errorOf(() -> store.endTransaction(TransactionEnd.byOffset(PRODUCER_GROUP,
                    other.commitLogOffset(), committed.uniqueId(), TransactionResolution.COMMIT)).join()))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            // "Not yet" changes nothing either.
            end(store, other, TransactionResolution.UNKNOWN);

            assertThat(delivered(store)).extracting(StoredMessage::uniqueId).containsExactly(committed.uniqueId());
            assertThat(store.pendingTransactions()).isEqualTo(1);
            end(store, other, TransactionResolution.COMMIT);
            assertThat(delivered(store)).extracting(StoredMessage::uniqueId)
                    .containsExactlyInAnyOrder(committed.uniqueId(), other.uniqueId());
        }
    }

    @Test
    void shouldRefuseSendsToTheTransactionSystemTopics() {
        try (MessageStore store = openWithTopic()) {
            for (String topic : List.of(SystemNames.HALF_TOPIC, SystemNames.OP_TOPIC)) {
                assertThat(errorOf(() -> store.send(TestStores.text(topic, "x")).join()))
                        .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            }
        }
    }

    @Test
    void shouldCheckBackAfterTheIntervalWithTheProducerGroupAndCountEachCheck() {
        try (MessageStore store = openWithTopic()) {
            final SendResult r = sendHalf(store, "ask");
            now.addAndGet(INTERVAL - 1);
            store.checkTransactionsNow();
            assertThat(checks).isEmpty();

            now.addAndGet(1);
            store.checkTransactionsNow();
            assertThat(checks).hasSize(1);
            final Check first = checks.get(0);
            assertThat(first.producerGroup()).isEqualTo(PRODUCER_GROUP);
            assertThat(first.checkTimes()).isEqualTo(1);
            assertThat(first.half().uniqueId()).isEqualTo(r.uniqueId());
            assertThat(first.half().commitLogOffset()).isEqualTo(r.commitLogOffset());
            assertThat(first.half().realTopic()).isEqualTo(TOPIC);
            assertThat(first.half().realQueueId()).isEqualTo(r.queueId());
            assertThat(TestStores.body(first.half())).isEqualTo("ask");

            store.checkTransactionsNow();
            assertThat(checks).hasSize(1); // not due again before another interval
            now.addAndGet(INTERVAL);
            store.checkTransactionsNow();
            assertThat(checks).extracting(Check::checkTimes).containsExactly(1, 2);

            // The producer answers the check.
            store.endTransaction(new TransactionEnd(PRODUCER_GROUP, first.half().commitLogOffset(),
                    first.half().uniqueId(), null, TransactionResolution.COMMIT, true)).join();
            assertThat(delivered(store)).extracting(StoredMessage::uniqueId).containsExactly(r.uniqueId());
            now.addAndGet(10 * INTERVAL);
            store.checkTransactionsNow();
            assertThat(checks).hasSize(2);
        }
    }

    @Test
    void shouldCheckFirstAfterTheFirstCheckDelayThenEveryInterval() {
        final long firstCheck = 2_000;
        try (MessageStore store = open(config().transactionFirstCheck(Duration.ofMillis(firstCheck)).build())) {
            store.topics().createOrUpdate(TopicConfig.of(TOPIC, 4)).join();
            sendHalf(store, "ask");
            now.addAndGet(firstCheck - 1);
            store.checkTransactionsNow();
            assertThat(checks).isEmpty();
            now.addAndGet(1);
            store.checkTransactionsNow();
            assertThat(checks).extracting(Check::checkTimes).containsExactly(1);
            // the second check follows the interval, not the first-check delay
            now.addAndGet(firstCheck);
            store.checkTransactionsNow();
            now.addAndGet(INTERVAL - firstCheck - 1);
            store.checkTransactionsNow();
            assertThat(checks).hasSize(1);
            now.addAndGet(1);
            store.checkTransactionsNow();
            assertThat(checks).extracting(Check::checkTimes).containsExactly(1, 2);
        }
    }

    @Test
    void shouldHonourTheCheckImmunityTimeForTheFirstCheck() {
        try (MessageStore store = openWithTopic()) {
            store.send(half("soon").property(MessageProperties.CHECK_IMMUNITY_SECONDS, "10").build()).join();
            now.addAndGet(9_999);
            store.checkTransactionsNow();
            assertThat(checks).isEmpty();
            now.addAndGet(1);
            store.checkTransactionsNow();
            assertThat(checks).hasSize(1);
            // Later checks follow the interval.
            now.addAndGet(INTERVAL - 1);
            store.checkTransactionsNow();
            assertThat(checks).hasSize(1);
            now.addAndGet(1);
            store.checkTransactionsNow();
            assertThat(checks).hasSize(2);
        }
    }

    @Test
    void shouldKeepWaitingWithoutAChecker() {
        try (MessageStore store = openWithTopic()) {
            store.removeTransactionChecker(recorder);
            sendHalf(store, "wait");
            for (int i = 0; i < 20; i++) {
                now.addAndGet(INTERVAL);
                assertThat(store.checkTransactionsNow()).isZero();
            }
            assertThat(store.pendingTransactions()).isEqualTo(1);
            assertThat(delivered(store)).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(value = TransactionResolution.class, names = {"COMMIT", "ROLLBACK"})
    void shouldApplyTheTimeoutResolutionAfterMaxChecks(final TransactionResolution timeout) {
        try (MessageStore store = open(config().transactionMaxChecks(3).transactionTimeoutResolution(timeout)
                .build())) {
            store.topics().createOrUpdate(TopicConfig.of(TOPIC, 4)).join();
            final SendResult r = sendHalf(store, "late");
            for (int i = 0; i < 3; i++) {
                now.addAndGet(INTERVAL);
                store.checkTransactionsNow();
            }
            assertThat(checks).extracting(Check::checkTimes).containsExactly(1, 2, 3);
            assertThat(store.pendingTransactions()).isEqualTo(1);

            now.addAndGet(INTERVAL);
            store.checkTransactionsNow();

            assertThat(checks).hasSize(3);
            assertThat(store.pendingTransactions()).isZero();
            assertThat(delivered(store)).extracting(StoredMessage::uniqueId)
                    .containsExactlyElementsOf(timeout == TransactionResolution.COMMIT ? List.of(r.uniqueId())
                            : List.of());
            assertThat(errorOf(() -> end(store, r, TransactionResolution.COMMIT)))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
        }
    }

    @Test
    void shouldBringBackExactlyTheUnresolvedHalfMessagesAfterARestart() {
        final StoreConfig config = config().build();
        final List<SendResult> halves = new ArrayList<>();
        try (MessageStore store = open(config)) {
            store.topics().createOrUpdate(TopicConfig.of(TOPIC, 4)).join();
            for (int i = 0; i < 5; i++) {
                halves.add(sendHalf(store, "h" + i));
            }
            end(store, halves.get(1), TransactionResolution.COMMIT);
            end(store, halves.get(3), TransactionResolution.ROLLBACK);
        }
        try (MessageStore store = open(config)) {
            assertThat(store.pendingTransactions()).isEqualTo(3);
            now.addAndGet(INTERVAL);
            store.checkTransactionsNow();
            assertThat(checks).extracting(c -> c.half().uniqueId()).containsExactlyInAnyOrder(
                    halves.get(0).uniqueId(), halves.get(2).uniqueId(), halves.get(4).uniqueId());
            assertThat(checks).allSatisfy(c -> assertThat(c.producerGroup()).isEqualTo(PRODUCER_GROUP));

            end(store, halves.get(0), TransactionResolution.COMMIT);
            end(store, halves.get(2), TransactionResolution.ROLLBACK);
            store.endTransaction(TransactionEnd.byId(halves.get(4).uniqueId(), null, TransactionResolution.COMMIT))
                    .join();
            assertThat(errorOf(() -> end(store, halves.get(1), TransactionResolution.COMMIT)))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(delivered(store)).extracting(StoredMessage::uniqueId).containsExactlyInAnyOrder(
                    halves.get(0).uniqueId(), halves.get(1).uniqueId(), halves.get(4).uniqueId());
        }
        checks.clear();
        try (MessageStore store = open(config)) {
            assertThat(store.pendingTransactions()).isZero();
            // Nothing pending: the next replay starts at the ends of both topics.
            assertThat(store.queryOffset(REPLAY_GROUP, SystemNames.HALF_TOPIC, 0))
                    .isEqualTo(store.maxOffset(SystemNames.HALF_TOPIC, 0)).isEqualTo(5);
            assertThat(store.queryOffset(REPLAY_GROUP, SystemNames.OP_TOPIC, 0))
                    .isEqualTo(store.maxOffset(SystemNames.OP_TOPIC, 0)).isPositive();
            now.addAndGet(10 * INTERVAL);
            store.checkTransactionsNow();
            assertThat(checks).isEmpty();
            assertThat(delivered(store)).extracting(StoredMessage::uniqueId).containsExactlyInAnyOrder(
                    halves.get(0).uniqueId(), halves.get(1).uniqueId(), halves.get(4).uniqueId());
        }
    }

    @Test
    void shouldKeepCheckCountsAcrossARestart() {
        final StoreConfig config = config().transactionMaxChecks(3).build();
        final SendResult r;
        try (MessageStore store = open(config)) {
            store.topics().createOrUpdate(TopicConfig.of(TOPIC, 4)).join();
            r = sendHalf(store, "counted");
            now.addAndGet(INTERVAL);
            store.checkTransactionsNow();
            now.addAndGet(INTERVAL);
            store.checkTransactionsNow();
            assertThat(checks).extracting(Check::checkTimes).containsExactly(1, 2);
        }
        try (MessageStore store = open(config)) {
            assertThat(store.pendingTransactions()).isEqualTo(1);
            store.checkTransactionsNow();
            assertThat(checks).hasSize(2); // the last check was just now: not due yet
            now.addAndGet(INTERVAL);
            store.checkTransactionsNow();
            assertThat(checks).extracting(Check::checkTimes).containsExactly(1, 2, 3);
            now.addAndGet(INTERVAL);
            store.checkTransactionsNow();
            assertThat(store.pendingTransactions()).isZero();
            assertThat(delivered(store)).isEmpty();
            assertThat(errorOf(() -> end(store, r, TransactionResolution.COMMIT)))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
        }
    }

    @Test
    void shouldKeepReplayingCorrectlyOnceReplayPositionsMovedPastResolvedHalves() {
        final StoreConfig config = config().build();
        final List<SendResult> halves = new ArrayList<>();
        try (MessageStore store = open(config)) {
            store.topics().createOrUpdate(TopicConfig.of(TOPIC, 4)).join();
            for (int i = 0; i < 4; i++) {
                halves.add(sendHalf(store, "p" + i));
            }
            end(store, halves.get(0), TransactionResolution.COMMIT);
            end(store, halves.get(1), TransactionResolution.ROLLBACK);
        }
        // The first restart's checkpoint moves the replay positions past the two resolved halves.
        try (MessageStore store = open(config)) {
            assertThat(store.pendingTransactions()).isEqualTo(2);
            assertThat(store.queryOffset(REPLAY_GROUP, SystemNames.HALF_TOPIC, 0)).isEqualTo(2);
            end(store, halves.get(3), TransactionResolution.COMMIT);
            halves.add(sendHalf(store, "p4"));
        }
        try (MessageStore store = open(config)) {
            assertThat(store.pendingTransactions()).isEqualTo(2);
            now.addAndGet(INTERVAL);
            store.checkTransactionsNow();
            assertThat(checks).extracting(c -> c.half().uniqueId())
                    .containsExactlyInAnyOrder(halves.get(2).uniqueId(), halves.get(4).uniqueId());
            end(store, halves.get(4), TransactionResolution.COMMIT);
            assertThat(delivered(store)).extracting(StoredMessage::uniqueId).containsExactlyInAnyOrder(
                    halves.get(0).uniqueId(), halves.get(3).uniqueId(), halves.get(4).uniqueId());
        }
    }

    @Test
    void shouldNotDeliverTwiceWhenACommitWasStoredBeforeARestartWithoutItsOpRecord() {
        final StoreConfig config = config().build();
        final SendResult r;
        try (MessageStore store = open(config)) {
            store.topics().createOrUpdate(TopicConfig.of(TOPIC, 4)).join();
            r = sendHalf(store, "once");
            // What a commit cut short by a crash leaves: the real message stored, no op record.
            store.send(Message.builder(TOPIC).queueId(r.queueId()).uniqueId(r.uniqueId())
                    .body("once".getBytes(StandardCharsets.UTF_8)).build()).join();
        }
        try (MessageStore store = open(config)) {
            assertThat(store.pendingTransactions()).isEqualTo(1);
            end(store, r, TransactionResolution.COMMIT);
            assertThat(delivered(store)).extracting(StoredMessage::uniqueId).containsExactly(r.uniqueId());
            assertThat(store.pendingTransactions()).isZero();
        }
    }

    @Test
    void shouldRollBackOnTimeoutWhenACommitCanNeverBeDelivered() {
        try (MessageStore store = open(config().transactionMaxChecks(0)
                .transactionTimeoutResolution(TransactionResolution.COMMIT).build())) {
            store.topics().createOrUpdate(TopicConfig.of(TOPIC, 4)).join();
            sendHalf(store, "nowhere");
            store.topics().createOrUpdate(new TopicConfig(TOPIC, 4, TopicType.NORMAL, TopicConfig.PERM_READ,
                    Map.of())).join();
            now.addAndGet(INTERVAL);
            store.checkTransactionsNow();
            assertThat(store.pendingTransactions()).isZero();
        }
    }

    @Test
    void shouldLetOnlyOneOfTwoConcurrentCommitsDeliver() {
        try (MessageStore store = openWithTopic()) {
            for (int i = 0; i < 20; i++) {
                final SendResult r = sendHalf(store, "c" + i);
                final TransactionEnd commit = TransactionEnd.byOffset(PRODUCER_GROUP, r.commitLogOffset(),
                        r.uniqueId(), TransactionResolution.COMMIT);
                final var first = store.endTransaction(commit);
                final var second = store.endTransaction(commit);
                final long succeeded = java.util.stream.Stream.of(first, second).filter(f -> {
                    try {
                        f.join();
                        return true;
                    } catch (RuntimeException e) {
                        assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
                        return false;
                    }
                }).count();
                assertThat(succeeded).isEqualTo(1);
            }
            assertThat(delivered(store)).hasSize(20);
            assertThat(delivered(store).stream().map(StoredMessage::uniqueId).distinct()).hasSize(20);
        }
    }
}
