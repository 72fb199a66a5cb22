package io.junction.core.engine;

import static io.junction.core.engine.TestStores.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.SystemNames;
import io.junction.core.message.Message;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.txn.TransactionEnd;
import io.junction.core.txn.TransactionResolution;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueueSealingTest {
    @TempDir
    Path dir;

    @Test
    void shouldRefuseEveryWriteToASealedQueueAndAnswerItsEnd() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("orders", 2)).join();
            for (int i = 0; i < 5; i++) {
                store.send(to("orders", 0, "m" + i)).join();
            }
            assertThat(store.topics().sealQueue("orders", 0).join()).isEqualTo(5L);

            assertRefusedAsSealed(store.send(to("orders", 0, "late")));
            assertRefusedAsSealed(store.sendBatch(List.of(to("orders", 0, "b1"), to("orders", 0, "b2"))));
            assertRefusedAsSealed(store.send(Message.builder("orders").queueId(0).body(new byte[1])
                    .property("TIMER_DELAY_SEC", "30").build()));
            // The other queue of the topic is untouched.
            assertThat(store.send(to("orders", 1, "other")).join().queueOffset()).isZero();
            // Idempotent: sealing again answers the same end.
            assertThat(store.topics().sealQueue("orders", 0).join()).isEqualTo(5L);

            TestStores.awaitIndexed(store);
            assertThat(readAll(store, "orders", 0)).extracting(TestStores::body)
                    .containsExactly("m0", "m1", "m2", "m3", "m4");
        }
    }

    @Test
    void shouldAnswerTheExactEndUnderConcurrentSends() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("busy", 1)).join();
            final AtomicBoolean sealed = new AtomicBoolean();
            final List<CompletableFuture<SendResult>> sends = new ArrayList<>();
            final Thread producer = new Thread(() -> {
                // Goes on until it has sent 50 after seeing the seal answered: those must be refused.
                int afterSeal = 0;
                for (int i = 0; afterSeal < 50; i++) {
                    if (sealed.get()) {
                        afterSeal++;
                    }
                    final CompletableFuture<SendResult> f = store.send(to("busy", 0, "m" + i));
                    synchronized (sends) {
                        sends.add(f);
                    }
                }
            });
            producer.start();
            while (true) {
                synchronized (sends) {
                    if (sends.size() >= 500) {
                        break;
                    }
                }
                Thread.onSpinWait();
            }
            final long end = store.topics().sealQueue("busy", 0).join();
            sealed.set(true);
            producer.join();

            int acknowledged = 0;
            int refused = 0;
            final List<String> acknowledgedBodies = new ArrayList<>();
            for (int i = 0; i < sends.size(); i++) {
                try {
                    final SendResult r = sends.get(i).join();
                    assertThat(r.queueOffset()).isLessThan(end);
                    acknowledged++;
                    acknowledgedBodies.add("m" + i);
                } catch (CompletionException e) {
                    assertThat(((StoreException) e.getCause()).error()).isEqualTo(StoreError.QUEUE_SEALED);
                    refused++;
                }
            }
            assertThat(acknowledged).isEqualTo((int) end);
            assertThat(refused).isPositive();
            TestStores.awaitIndexed(store);
            assertThat(store.maxOffset("busy", 0)).isEqualTo(end);
            assertThat(readAll(store, "busy", 0)).extracting(TestStores::body).containsExactlyElementsOf(
                    acknowledgedBodies);
        }
    }

    @Test
    void shouldAnswerReadsWaitingAtTheEndOfAQueueWhenItIsSealed() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("waited", 1)).join();
            store.send(to("waited", 0, "a")).join();
            TestStores.awaitIndexed(store);
            final CompletableFuture<PullResult> parked = store.pull(new PullRequest("g", "waited", 0, 1, 10, null,
                    60_000));
            assertThat(store.topics().sealQueue("waited", 0).join()).isEqualTo(1L);
            // Far less than the 60 s the read asked to wait: nothing more will come to a sealed queue.
            assertThat(parked.get(20, TimeUnit.SECONDS).status()).isEqualTo(PullStatus.NO_NEW_MESSAGE);
            assertThat(store.pull(new PullRequest("g", "waited", 0, 1, 10, null, 60_000)).get(20, TimeUnit.SECONDS)
                    .status()).as("a read at a sealed end does not wait").isEqualTo(PullStatus.NO_NEW_MESSAGE);
        }
    }

    @Test
    void shouldKeepTheSealAcrossARestart() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("kept", 1)).join();
            store.send(to("kept", 0, "a")).join();
            store.send(to("kept", 0, "b")).join();
            assertThat(store.topics().sealQueue("kept", 0).join()).isEqualTo(2L);
        }
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            assertRefusedAsSealed(store.send(to("kept", 0, "after restart")));
            assertThat(store.topics().sealQueue("kept", 0).join()).isEqualTo(2L);
            TestStores.awaitIndexed(store);
            assertThat(readAll(store, "kept", 0)).extracting(TestStores::body).containsExactly("a", "b");
        }
    }

    @Test
    void shouldKeepASealThroughRetentionAndForgetItWithItsTopic() {
        final long[] now = {1_000_000_000L};
        final StoreConfig config = TestStores.small(dir).retention(Duration.ofHours(1)).build();
        try (MessageStore store = MessageStore.open(config, () -> now[0], MappedSegmentFile.FACTORY)) {
            store.topics().createOrUpdate(TopicConfig.of("kept", 1)).join();
            store.topics().createOrUpdate(TopicConfig.of("filler", 1)).join();
            store.send(to("kept", 0, "a")).join();
            store.send(to("kept", 0, "b")).join();
            assertThat(store.topics().sealQueue("kept", 0).join()).isEqualTo(2L);
            for (int i = 0; i < 60; i++) { // 2.4 MB: the seal's record ends up in an old segment
                store.send(Message.builder("filler").queueId(0).body(new byte[40_000]).build()).join();
            }
            TestStores.awaitIndexed(store);
            now[0] += Duration.ofHours(2).toMillis();
            store.send(to("filler", 0, "fresh")).join();
            TestStores.awaitIndexed(store);

            store.runRetention();
            TestStores.awaitIndexed(store);
            assertThat(store.minOffset(QueueSealing.TOPIC, 0)).as("the first seal record went with its segment")
                    .isGreaterThan(0);
            assertThat(store.maxOffset(QueueSealing.TOPIC, 0)).as("and came back at the end").isEqualTo(2);
        }
        try (MessageStore store = MessageStore.open(config, () -> now[0], MappedSegmentFile.FACTORY)) {
            assertRefusedAsSealed(store.send(to("kept", 0, "after retention and restart")));
            assertThat(store.topics().sealQueue("kept", 0).join()).isEqualTo(2L);
            assertThat(store.topics().delete("kept").join()).isTrue();
        }
        try (MessageStore store = MessageStore.open(config, () -> now[0], MappedSegmentFile.FACTORY)) {
            store.topics().createOrUpdate(TopicConfig.of("kept", 1)).join();
            assertThat(store.send(to("kept", 0, "a topic made again starts open")).join().queueId()).isZero();
        }
    }

    @Test
    void shouldRefuseClientWritesToTheSealTopicAndSealsOfUnknownQueues() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            assertThatThrownBy(() -> store.send(to(QueueSealing.TOPIC, 0, "forged")).join())
                    .hasCauseInstanceOf(StoreException.class);
            store.topics().createOrUpdate(TopicConfig.of("two", 2)).join();
            assertThatThrownBy(() -> store.topics().sealQueue("two", 2).join())
                    .cause().extracting(c -> ((StoreException) c).error()).isEqualTo(StoreError.QUEUE_NOT_FOUND);
            assertThatThrownBy(() -> store.topics().sealQueue("none", 0).join())
                    .cause().extracting(c -> ((StoreException) c).error()).isEqualTo(StoreError.TOPIC_NOT_FOUND);
        }
    }

    @Test
    void shouldForwardATimerDueAndAHalfCommittedAfterTheSealInsteadOfRetryingForever() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("moving", 2)).join();
            store.send(to("moving", 0, "before")).join();
            final SendResult delayed = store.send(Message.builder("moving").queueId(0).body("later".getBytes(
                    StandardCharsets.UTF_8)).property(MessageProperties.DELAY_MS, "1500").build()).join();
            final SendResult half = store.send(Message.builder("moving").queueId(0)
                    .body("committed".getBytes(StandardCharsets.UTF_8))
                    .property(MessageProperties.TRANSACTION_PREPARED, "true")
                    .property(MessageProperties.PRODUCER_GROUP, "pg").build()).join();
            assertThat(store.topics().sealQueue("moving", 0).join()).isEqualTo(1L);

            store.endTransaction(TransactionEnd.byOffset("pg", half.commitLogOffset(), half.uniqueId(),
                    TransactionResolution.COMMIT)).join();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            List<StoredMessage> forwarded = List.of();
            while (forwarded.size() < 2) {
                assertThat(System.nanoTime()).as("both forwarded in time").isLessThan(deadline);
                TestStores.awaitIndexed(store);
                forwarded = store.topics().get(SystemNames.SEALED_FORWARD_TOPIC).isPresent()
                        ? readAll(store, SystemNames.SEALED_FORWARD_TOPIC, 0) : List.of();
                Thread.onSpinWait();
            }
            assertThat(forwarded).extracting(TestStores::body).containsExactlyInAnyOrder("later", "committed");
            assertThat(forwarded).allSatisfy(m -> {
                assertThat(m.property(MessageProperties.REAL_TOPIC)).isEqualTo("moving");
                assertThat(m.property(MessageProperties.REAL_QUEUE_ID)).isEqualTo("0");
            });
            assertThat(forwarded).extracting(StoredMessage::uniqueId)
                    .containsExactlyInAnyOrder(delayed.uniqueId(), half.uniqueId());
            // The sealed queue got nothing past its end, and clients cannot write to the forward topic.
            assertThat(readAll(store, "moving", 0)).extracting(TestStores::body).containsExactly("before");
            assertThatThrownBy(() -> store.send(to(SystemNames.SEALED_FORWARD_TOPIC, 0, "forged")).join())
                    .cause().extracting(c -> ((StoreException) c).error()).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
        }
    }

    private static void assertRefusedAsSealed(final CompletableFuture<?> send) {
        assertThatThrownBy(send::join).isInstanceOf(CompletionException.class).cause()
                .isInstanceOf(StoreException.class)
                .extracting(c -> ((StoreException) c).error()).isEqualTo(StoreError.QUEUE_SEALED);
    }

    private static Message to(final String topic, final int queueId, final String body) {
        return Message.builder(topic).queueId(queueId).body(body.getBytes(StandardCharsets.UTF_8)).build();
    }
}
