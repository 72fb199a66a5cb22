package io.junction.core.timer;

import static io.junction.core.engine.TestStores.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.RecallHandle;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimerRecallTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(T0);

    private MessageStore open() {
        return MessageStore.open(TestStores.small(dir).build(), clock::get, MappedSegmentFile.FACTORY);
    }

    private static SendResult sendAt(final MessageStore store, final String body, final long at) {
        return store.send(Message.builder("t").queueId(0).property(MessageProperties.DELIVER_AT, Long.toString(at))
                .body(body.getBytes(StandardCharsets.UTF_8)).build()).join();
    }

    private static RecallHandle handle(final SendResult sent, final long at) {
        return new RecallHandle("t", sent.uniqueId(), at, sent.commitLogOffset());
    }

    private static List<String> delivered(final MessageStore store) {
        TestStores.awaitIndexed(store);
        return readAll(store, "t", 0).stream().map(TestStores::body).toList();
    }

    private static void await(final String what, final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
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
    void shouldNeverDeliverARecalledMessage() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final long at = T0 + 10_000;
            final SendResult recalled = sendAt(store, "recalled", at);
            sendAt(store, "kept", at);
            sendAt(store, "probe", at + 1);
            store.recall(handle(recalled, at)).join();
            // recalling twice is fine: the message stays recalled
            store.recall(handle(recalled, at)).join();

            clock.set(at + 1);
            await("the probe", () -> delivered(store).contains("probe"));
            assertThat(delivered(store)).containsExactlyInAnyOrder("kept", "probe");
            assertThat(store.pendingTimers()).isZero();
        }
    }

    @Test
    void shouldKeepARecallAcrossARestart() {
        final long at = T0 + 10_000;
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final SendResult recalled = sendAt(store, "recalled", at);
            sendAt(store, "kept", at);
            store.recall(handle(recalled, at)).join();
        }
        clock.set(at + 5);
        try (MessageStore store = open()) {
            await("the kept message", () -> delivered(store).contains("kept"));
            sendAt(store, "probe", at + 6);
            clock.set(at + 6);
            await("the probe", () -> delivered(store).contains("probe"));
            assertThat(delivered(store)).containsExactlyInAnyOrder("kept", "probe");
        }
    }

    @Test
    void shouldRefuseARecallOnceTheDeliveryTimeCame() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final long at = T0 + 10_000;
            final SendResult sent = sendAt(store, "late", at);
            clock.set(at);
            assertThat(errorOf(store.recall(handle(sent, at)))).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            await("the message", () -> delivered(store).contains("late"));
        }
    }

    @Test
    void shouldRefuseAHandleThatNamesNoDelayedMessage() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final long at = T0 + 10_000;
            final SendResult sent = sendAt(store, "m", at);
            final SendResult plain = store.send(Message.builder("t").queueId(0)
                    .body("now".getBytes(StandardCharsets.UTF_8)).build()).join();
            assertThat(errorOf(store.recall(new RecallHandle("t", "0A0B", at, sent.commitLogOffset()))))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(errorOf(store.recall(new RecallHandle("other", sent.uniqueId(), at,
                    sent.commitLogOffset())))).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(errorOf(store.recall(new RecallHandle("t", sent.uniqueId(), at + 1,
                    sent.commitLogOffset())))).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(errorOf(store.recall(new RecallHandle("t", sent.uniqueId(), at,
                    sent.commitLogOffset() + 7)))).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(errorOf(store.recall(new RecallHandle("t", sent.uniqueId(), at, 1L << 40))))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            // a message sent without delay has nothing to recall
            assertThat(errorOf(store.recall(new RecallHandle("t", plain.uniqueId(), at, plain.commitLogOffset()))))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            clock.set(at);
            await("the message", () -> delivered(store).contains("m"));
        }
    }

    @Test
    void shouldRoundTripTheHandleTextAndRejectGarbage() {
        final RecallHandle h = new RecallHandle("orders", "7F0000010001", 1_700_000_010_000L, 123_456L);
        assertThat(RecallHandle.decode(h.encode())).isEqualTo(h);
        assertThat(RecallHandle.decode("")).isNull();
        assertThat(RecallHandle.decode("not base64 !")).isNull();
        assertThat(RecallHandle.decode("MQpvcmRlcnMKaWQ")).isNull(); // "1\norders\nid": too few parts
        assertThat(RecallHandle.decode(h.encode().substring(4))).isNull();
        assertThat(RecallHandle.decode("x".repeat(5000))).isNull();
    }
}
