package io.junction.core.pop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PopStart;
import io.junction.core.PoppedMessage;
import io.junction.core.Receipt;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.SystemNames;
import io.junction.core.engine.FlushMode;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.TestStores;
import io.junction.core.filter.FilterType;
import io.junction.core.filter.Filters;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PopTest {
    private static final long INVISIBLE = 30_000;

    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

    private MessageStore open() {
        return open(TestStores.small(dir).build());
    }

    private MessageStore open(final StoreConfig config) {
        return MessageStore.open(config, now::get, MappedSegmentFile.FACTORY);
    }

    private static void sendNumbered(final MessageStore store, final String topic, final int count) {
        final List<CompletableFuture<?>> sends = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sends.add(store.send(Message.builder(topic).keys("n" + i).body(("m" + i).getBytes(StandardCharsets.UTF_8))
                    .build()));
        }
        sends.forEach(CompletableFuture::join);
        TestStores.awaitIndexed(store);
    }

    private static PopResult pop(final MessageStore store, final String group, final String topic, final int max) {
        return store.pop(new PopRequest(group, topic, null, max, INVISIBLE, 0)).join();
    }

    private static List<PoppedMessage> popAll(final MessageStore store, final String group, final String topic) {
        final List<PoppedMessage> all = new ArrayList<>();
        for (int empty = 0; empty < 3; ) {
            final PopResult r = pop(store, group, topic, 32);
            all.addAll(r.messages());
            empty = r.messages().isEmpty() ? empty + 1 : 0;
        }
        return all;
    }

    private static String body(final PoppedMessage m) {
        return TestStores.body(m.message());
    }

    @Test
    void shouldForgetAckedCheckpointsBeforeTheirDeadline() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sendNumbered(store, "t", 3_010);
            final PopResult held = pop(store, "g", "t", 10);
            assertThat(held.messages()).hasSize(10);
            for (int i = 0; i < 3_000; i++) {
                final PopResult r = pop(store, "g", "t", 1);
                assertThat(r.messages()).hasSize(1);
                store.ack("g", r.messages().get(0).receiptHandle()).join();
            }
            // 3,010 checkpoints were made and 3,000 closed long before their deadline: swept once 1,024 had closed
            // and they were half of what was kept (the old ledger kept all of them for the invisible time).
            assertThat(store.inFlight()).isEqualTo(10);
            assertThat(store.popCheckpointsTracked()).isBetween(11, 10 + 1_024 * 2);
            now.addAndGet(INVISIBLE + 1);
            assertThat(store.reviveNow()).as("the held ones still come back").isEqualTo(10);
            assertThat(store.popCheckpointsTracked()).isZero();
        }
    }

    @Test
    void shouldHandEachMessageOutOnceAndNeverAgainAfterItsAck() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 4)).join();
            sendNumbered(store, "t", 100);
            final List<PoppedMessage> popped = popAll(store, "g", "t");
            assertThat(popped).hasSize(100);
            assertThat(popped.stream().map(PopTest::body).distinct()).hasSize(100);
            assertThat(store.inFlight()).isEqualTo(100);
            for (PoppedMessage m : popped) {
                store.ack("g", m.receiptHandle()).join();
            }
            assertThat(store.inFlight()).isZero();
            now.addAndGet(INVISIBLE + 1);
            assertThat(store.reviveNow()).isZero();
            assertThat(popAll(store, "g", "t")).isEmpty();
            // Another group sees everything on its own.
            assertThat(popAll(store, "other", "t")).hasSize(100);
        }
    }

    @Test
    void shouldRedeliverAnUnackedMessageAfterItsInvisibleTimeWithItsCountRaised() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 2)).join();
            sendNumbered(store, "t", 1);
            final PoppedMessage first = pop(store, "g", "t", 1).messages().get(0);
            assertThat(first.reconsumeTimes()).isZero();
            now.addAndGet(INVISIBLE - 1);
            assertThat(store.reviveNow()).isZero();
            assertThat(pop(store, "g", "t", 1).messages()).isEmpty();
            now.addAndGet(2);
            assertThat(store.reviveNow()).isEqualTo(1);
            TestStores.awaitIndexed(store);
            final PoppedMessage again = pop(store, "g", "t", 1).messages().get(0);
            assertThat(body(again)).isEqualTo("m0");
            assertThat(again.topic()).isEqualTo("t");
            assertThat(again.reconsumeTimes()).isEqualTo(1);
            assertThat(again.message().uniqueId()).isEqualTo(first.message().uniqueId());
            assertThatThrownBy(() -> store.ack("g", first.receiptHandle()).join())
                    .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT))
                    .hasMessageContaining("expired");
            store.ack("g", again.receiptHandle()).join();
        }
    }

    @Test
    void shouldAnswerAPopBeforeItsCheckpointIsForcedAndMoveTheGroupOffsetOnlyOnceItIsDurable() throws Exception {
        // SYNC, and an idle force only every minute: only a forced record's fsync can make the checkpoint durable.
        try (MessageStore store = open(TestStores.small(dir).flushMode(FlushMode.SYNC)
                .flushInterval(Duration.ofMinutes(1)).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sendNumbered(store, "t", 3);
            final long flushed = store.stats().logFlushedOffset();

            assertThat(pop(store, "g", "t", 32).messages()).extracting(PopTest::body)
                    .containsExactly("m0", "m1", "m2");

            assertThat(store.stats().logFlushedOffset()).as("the pop waited for no fsync").isEqualTo(flushed);
            assertThat(store.queryOffset("g", "t", 0)).as("not past messages whose checkpoint may be lost")
                    .isLessThan(3);
            store.send(Message.builder("other").body(new byte[] {1}).build()).join(); // its fsync covers the ck
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (store.queryOffset("g", "t", 0) != 3 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(store.queryOffset("g", "t", 0)).isEqualTo(3);
        }
    }

    @Test
    void shouldHoldOneCancelListenerOnALongPollWokenAgainAndAgain() throws Exception {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final CompletableFuture<PopResult> waiting = store.pop(new PopRequest("g", "t",
                    Filters.compile(FilterType.TAG, "wanted"), 1, INVISIBLE, 60_000));
            // Each arrival wakes the pop; its filter rejects the message, so it parks again for the rest of its wait.
            for (int i = 0; i < 20; i++) {
                store.send(Message.builder("t").tag("other").body(new byte[] {1}).build()).join();
                Thread.sleep(10);
            }
            TestStores.awaitIndexed(store);
            Thread.sleep(100);

            assertThat(waiting).isNotDone();
            // The store's traffic counter and the one listener that frees the latest parking when cancelled; one per
            // parking kept every parked read alive until the pop answered.
            assertThat(waiting.getNumberOfDependents()).isLessThanOrEqualTo(2);
            waiting.cancel(false);
            store.send(Message.builder("t").tag("wanted").body("w".getBytes(StandardCharsets.UTF_8)).build()).join();
            TestStores.awaitIndexed(store);
            assertThat(pop(store, "g", "t", 32).messages()).as("the cancelled pop took nothing")
                    .extracting(PopTest::body).containsExactly("w");
        }
    }

    @Test
    void shouldDeadLetterAfterMaxReconsumeTimes() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            store.groups().createOrUpdate(new GroupConfig("g", 2, false, false, Map.of())).join();
            sendNumbered(store, "t", 1);
            int deliveries = 0;
            while (true) {
                final PopResult r = pop(store, "g", "t", 1);
                if (r.messages().isEmpty()) {
                    break;
                }
                deliveries++;
                now.addAndGet(INVISIBLE + 1);
                store.reviveNow();
                TestStores.awaitIndexed(store);
            }
            assertThat(deliveries).isEqualTo(3);
            final List<StoredMessage> dlq = TestStores.readAll(store, SystemNames.deadLetterTopic("g"), 0);
            assertThat(dlq).hasSize(1);
            assertThat(TestStores.body(dlq.get(0))).isEqualTo("m0");
            assertThat(dlq.get(0).property("DLQ_ORIGIN_TOPIC")).isEqualTo("t");
            assertThat(dlq.get(0).reconsumeTimes()).isEqualTo(3);
        }
    }

    @Test
    void shouldRefuseForgedForeignAndUsedHandlesWithoutChangingState() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sendNumbered(store, "t", 1);
            final PoppedMessage m = pop(store, "g", "t", 1).messages().get(0);
            final String h = m.receiptHandle();
            final String forged = h.substring(0, 10) + (h.charAt(10) == 'A' ? 'B' : 'A') + h.substring(11);
            assertThat(errorOf(store.ack("g", forged))).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(errorOf(store.ack("g", "not-a-handle"))).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(errorOf(store.ack("other", h))).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(store.inFlight()).isEqualTo(1);
            store.ack("g", h).join();
            assertThat(errorOf(store.ack("g", h))).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(store.inFlight()).isZero();
        }
    }

    @Test
    void shouldMoveTheDeadlineWithChangeInvisibleTimeAndNack() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            store.groups().createOrUpdate(new GroupConfig("g", 16, false, false,
                    Map.of(RetryPolicy.BACKOFF_ATTRIBUTE, "5s 1m"))).join();
            sendNumbered(store, "t", 1);
            final PoppedMessage m = pop(store, "g", "t", 1).messages().get(0);
            final String later = store.changeInvisibleTime("g", m.receiptHandle(), 100_000).join();
            assertThat(errorOf(store.ack("g", m.receiptHandle()))).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            now.addAndGet(INVISIBLE + 1);
            assertThat(store.reviveNow()).isZero();
            final String nacked = store.nack("g", later).join();
            assertThat(nacked).isNotEqualTo(later);
            now.addAndGet(4_999);
            assertThat(store.reviveNow()).isZero();
            now.addAndGet(2);
            assertThat(store.reviveNow()).isEqualTo(1);
            TestStores.awaitIndexed(store);
            final PoppedMessage again = pop(store, "g", "t", 1).messages().get(0);
            assertThat(again.reconsumeTimes()).isEqualTo(1);
        }
    }

    @Test
    void shouldDeadLetterAPoppedMessageOnRequest() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sendNumbered(store, "t", 2);
            final List<PoppedMessage> popped = popAll(store, "g", "t");
            store.deadLetter("g", popped.get(0).receiptHandle()).join();
            assertThat(errorOf(store.ack("g", popped.get(0).receiptHandle()))).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(store.inFlight()).isEqualTo(1);
            TestStores.awaitIndexed(store);
            final List<StoredMessage> dead = TestStores.readAll(store, SystemNames.deadLetterTopic("g"), 0);
            assertThat(dead).extracting(TestStores::body).containsExactly(body(popped.get(0)));
            assertThat(dead.get(0).property(MessageProperties.DLQ_ORIGIN_TOPIC)).isEqualTo("t");
        }
    }

    @Test
    void shouldKeepALongPollWaitingWhenAnArrivalDoesNotMatchItsFilter() throws Exception {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final CompletableFuture<PopResult> parked = store.pop(new PopRequest("g", "t",
                    io.junction.core.filter.Filters.compile(io.junction.core.filter.FilterType.TAG, "wanted"), 1,
                    INVISIBLE, 20_000));
            Thread.sleep(200); // let it park
            store.send(Message.builder("t").tag("other").body("no".getBytes(StandardCharsets.UTF_8)).build()).join();
            Thread.sleep(300); // the arrival woke it; it must have parked again
            assertThat(parked).isNotDone();
            store.send(Message.builder("t").tag("wanted").body("yes".getBytes(StandardCharsets.UTF_8)).build())
                    .join();
            assertThat(parked.get(5, TimeUnit.SECONDS).messages()).extracting(PopTest::body).containsExactly("yes");
        }
    }

    @Test
    void shouldWakeAParkedPopWhenTheFirstRedeliveryCreatesTheRetryTopic() throws Exception {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sendNumbered(store, "t", 1);
            pop(store, "g", "t", 1);
            final CompletableFuture<PopResult> parked = store.pop(new PopRequest("g", "t", null, 1, INVISIBLE,
                    20_000));
            Thread.sleep(200); // let it park: nothing is visible now
            assertThat(parked).isNotDone();
            now.addAndGet(INVISIBLE + 1);
            assertThat(store.reviveNow()).isEqualTo(1); // creates %RETRY%g_t with the redelivered copy
            final PopResult r = parked.get(5, TimeUnit.SECONDS);
            assertThat(r.messages()).extracting(PopTest::body).containsExactly("m0");
            assertThat(r.messages().get(0).reconsumeTimes()).isEqualTo(1);
        }
    }

    @Test
    void shouldWakeALongPollingPopWhenAMessageArrives() throws Exception {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 4)).join();
            final CompletableFuture<PopResult> parked = store.pop(new PopRequest("g", "t", null, 4, INVISIBLE, 20_000));
            Thread.sleep(200); // let it park; the assertion is on the wake-up below
            assertThat(parked).isNotDone();
            final long sent = System.nanoTime();
            store.send(Message.builder("t").queueId(3).body("x".getBytes(StandardCharsets.UTF_8)).build()).join();
            final PopResult r = parked.get(5, TimeUnit.SECONDS);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent)).isLessThan(2000);
            assertThat(r.messages()).extracting(PopTest::body).containsExactly("x");
        }
    }

    @Test
    void shouldLeaveArrivalsToTheGroupWhenAParkedPopIsCancelled() throws Exception {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 4)).join();
            final CompletableFuture<PopResult> parked = store.pop(new PopRequest("g", "t", null, 4, INVISIBLE, 20_000));
            Thread.sleep(200); // let it park
            assertThat(parked.cancel(false)).isTrue();
            store.send(Message.builder("t").queueId(1).body("x".getBytes(StandardCharsets.UTF_8)).build()).join();
            TestStores.awaitIndexed(store);
            Thread.sleep(200); // a wake-up would have taken it by now
            assertThat(store.inFlight()).as("nothing taken for the cancelled pop").isZero();
            assertThat(pop(store, "g", "t", 4).messages()).extracting(PopTest::body).containsExactly("x");
        }
    }

    @Test
    void shouldKeepInFlightMessagesAcrossARestart() {
        final StoreConfig config = TestStores.small(dir).build();
        final Set<String> acked = new HashSet<>();
        final Set<String> unacked = new HashSet<>();
        try (MessageStore store = open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 2)).join();
            sendNumbered(store, "t", 20);
            final List<PoppedMessage> popped = popAll(store, "g", "t");
            assertThat(popped).hasSize(20);
            for (int i = 0; i < popped.size(); i++) {
                if (i % 2 == 0) {
                    store.ack("g", popped.get(i).receiptHandle()).join();
                    acked.add(body(popped.get(i)));
                } else {
                    unacked.add(body(popped.get(i)));
                }
            }
        }
        try (MessageStore store = open(config)) {
            assertThat(store.inFlight()).isEqualTo(10);
            assertThat(popAll(store, "g", "t")).isEmpty();
            now.addAndGet(INVISIBLE + 1);
            assertThat(store.reviveNow()).isEqualTo(10);
            TestStores.awaitIndexed(store);
            final List<PoppedMessage> back = popAll(store, "g", "t");
            assertThat(back).extracting(PopTest::body).containsExactlyInAnyOrderElementsOf(unacked);
            back.forEach(m -> store.ack("g", m.receiptHandle()).join());
        }
        try (MessageStore store = open(config)) {
            now.addAndGet(10 * INVISIBLE);
            assertThat(store.reviveNow()).isZero();
            assertThat(popAll(store, "g", "t")).isEmpty();
        }
    }

    @Test
    void shouldAckABatchOfHandlesDurablyAcrossARestartAndReportAnInvalidOneAfterAckingTheRest() {
        final StoreConfig config = TestStores.small(dir).build();
        final Set<String> unacked = new HashSet<>();
        try (MessageStore store = open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 4)).join();
            sendNumbered(store, "t", 60);
            final List<PoppedMessage> popped = popAll(store, "g", "t");
            assertThat(popped).hasSize(60);
            final List<String> batch = new ArrayList<>();
            for (int i = 0; i < popped.size(); i++) {
                if (i % 3 == 0) {
                    unacked.add(body(popped.get(i)));
                } else {
                    batch.add(popped.get(i).receiptHandle());
                }
            }
            batch.add(7, "forged-handle");
            assertThatThrownBy(() -> store.ack("g", batch).join()).hasCauseInstanceOf(StoreException.class);
            assertThat(store.inFlight()).isEqualTo(20);
            // Handles of the batch were used up: acking one again is refused.
            assertThatThrownBy(() -> store.ack("g", batch.get(0)).join()).hasCauseInstanceOf(StoreException.class);
        }
        try (MessageStore store = open(config)) {
            assertThat(store.inFlight()).isEqualTo(20);
            now.addAndGet(INVISIBLE + 1);
            assertThat(store.reviveNow()).isEqualTo(20);
            TestStores.awaitIndexed(store);
            final List<PoppedMessage> back = popAll(store, "g", "t");
            assertThat(back).extracting(PopTest::body).containsExactlyInAnyOrderElementsOf(unacked);
            store.ack("g", back.stream().map(PoppedMessage::receiptHandle).toList()).join();
            assertThat(store.inFlight()).isZero();
        }
        try (MessageStore store = open(config)) {
            now.addAndGet(10 * INVISIBLE);
            assertThat(store.reviveNow()).isZero();
            assertThat(popAll(store, "g", "t")).isEmpty();
        }
    }

    @Test
    void shouldAckReceiptsKeptInProcessDurablyAndRefuseThoseOfAnotherGroupOrAlreadyUsed() {
        final StoreConfig config = TestStores.small(dir).build();
        final Set<String> unacked = new HashSet<>();
        try (MessageStore store = open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 4)).join();
            sendNumbered(store, "t", 40);
            final List<PoppedMessage> popped = popAll(store, "g", "t");
            assertThat(popped).hasSize(40);
            final List<Receipt> receipts = new ArrayList<>();
            for (int i = 0; i < popped.size(); i++) {
                if (i % 4 == 0) {
                    unacked.add(body(popped.get(i)));
                } else {
                    receipts.add(popped.get(i).receipt());
                }
            }
            // Another group's receipt is refused; the rest of the batch is acked all the same.
            assertThatThrownBy(() -> store.ackReceipts("other", receipts.subList(0, 1)).join())
                    .hasCauseInstanceOf(StoreException.class).hasMessageContaining("another group");
            store.ackReceipts("g", receipts).join();
            assertThat(store.inFlight()).isEqualTo(10);
            // Used up: neither the receipt nor its sealed text acks again.
            assertThatThrownBy(() -> store.ackReceipts("g", receipts.subList(0, 1)).join())
                    .hasCauseInstanceOf(StoreException.class).hasMessageContaining("expired");
            assertThatThrownBy(() -> store.ack("g", receipts.get(1).sealed()).join())
                    .hasCauseInstanceOf(StoreException.class);
            // A receipt this store did not make goes through its sealed text, which does not open here.
            final Receipt foreign = () -> "not-a-sealed-handle";
            assertThatThrownBy(() -> store.ackReceipts("g", List.of(foreign)).join())
                    .hasCauseInstanceOf(StoreException.class).hasMessageContaining("invalid receipt handle");
        }
        try (MessageStore store = open(config)) {
            assertThat(store.inFlight()).isEqualTo(10);
            now.addAndGet(INVISIBLE + 1);
            assertThat(store.reviveNow()).isEqualTo(10);
            TestStores.awaitIndexed(store);
            assertThat(popAll(store, "g", "t")).extracting(PopTest::body).containsExactlyInAnyOrderElementsOf(unacked);
        }
    }

    @Test
    void shouldRefuseUnknownTopicsGroupsAndBadArguments() {
        try (MessageStore store = open(TestStores.small(dir).autoCreateGroups(false).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            assertThat(errorOf(store.pop(new PopRequest("g", "none", null, 1, 1000, 0))))
                    .isEqualTo(StoreError.TOPIC_NOT_FOUND);
            assertThat(errorOf(store.pop(new PopRequest("g", "t", null, 1, 1000, 0))))
                    .isEqualTo(StoreError.GROUP_NOT_FOUND);
            store.groups().createOrUpdate(GroupConfig.of("g")).join();
            assertThat(errorOf(store.pop(new PopRequest("g", "t", null, 0, 1000, 0))))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(store.pop(new PopRequest("g", "t", null, 1, 1000, 0)).join().messages()).isEmpty();
        }
    }

    private static StoreError errorOf(final CompletableFuture<?> f) {
        try {
            f.join();
            return null;
        } catch (RuntimeException e) {
            return StoreException.errorOf(e);
        }
    }


    @Test
    void shouldStartANewGroupWhereItsRequestAsksAndKeepThatStart() {
        final StoreConfig config = TestStores.small(dir).retention(java.time.Duration.ofHours(1)).build();
        try (MessageStore store = open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("whole", 1)).join();
            store.topics().createOrUpdate(TopicConfig.of("trimmed", 1)).join();
            // A queue whose first messages retention removed: old segments full of it, then fresh messages; and a
            // queue whose messages all came after (retention works on the log, shared by every queue).
            final byte[] big = new byte[50_000];
            for (int i = 0; i < 60; i++) {
                store.send(Message.builder("trimmed").queueId(0).body(big).build()).join();
            }
            now.addAndGet(java.time.Duration.ofHours(2).toMillis());
            sendNumbered(store, "trimmed", 2);
            sendNumbered(store, "whole", 3);
            TestStores.applyRetention(store);
            final long min = store.minOffset("trimmed", 0);
            final long max = store.maxOffset("trimmed", 0);
            assertThat(min).isGreaterThan(0).isLessThan(max - 2);

            // The queue still holds its first message: both start at 0.
            assertThat(popAll(store, "latest", "whole", PopStart.LATEST)).extracting(PopTest::body)
                    .containsExactly("m0", "m1", "m2");
            assertThat(popAll(store, "oldest", "whole", PopStart.OLDEST)).hasSize(3);
            // Trimmed: the oldest retained message, or (as RocketMQ's MAX) the last one.
            final List<PoppedMessage> oldest = popAll(store, "oldest", "trimmed", PopStart.OLDEST);
            assertThat(oldest).hasSize((int) (max - min));
            assertThat(oldest.get(0).message().queueOffset()).isEqualTo(min);
            final PopResult first = store.pop(new PopRequest("latest", "trimmed", null, 32, INVISIBLE, 0,
                    PopStart.LATEST)).join();
            assertThat(first.messages()).extracting(PopTest::body).containsExactly("m1");
            // Where it started is the group's offset now: nothing before it comes later, a restart included.
            assertThat(store.queryOffset("latest", "trimmed", 0)).isEqualTo(max);
        }
    }

    private static List<PoppedMessage> popAll(final MessageStore store, final String group, final String topic,
                                              final PopStart start) {
        final List<PoppedMessage> all = new ArrayList<>();
        for (int empty = 0; empty < 3; ) {
            final PopResult r = store.pop(new PopRequest(group, topic, null, 32, INVISIBLE, 0, start)).join();
            all.addAll(r.messages());
            empty = r.messages().isEmpty() ? empty + 1 : 0;
        }
        return all;
    }
}
