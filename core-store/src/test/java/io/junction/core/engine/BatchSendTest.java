package io.junction.core.engine;

import static io.junction.core.engine.TestStores.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.io.FaultySegmentFiles;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code Messaging.sendBatch}: all members or none, contiguous, in order, also across failed writes and restarts. */
class BatchSendTest {
    @TempDir
    Path dir;

    private static Message member(final String topic, final String body) {
        return Message.builder(topic).queueId(0).tag("B").body(body.getBytes(StandardCharsets.UTF_8)).build();
    }

    private static List<Message> batch(final String topic, final int count, final IntFunction<Message> override) {
        final List<Message> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            final Message special = override == null ? null : override.apply(i);
            out.add(special != null ? special : member(topic, "b" + i));
        }
        return out;
    }

    private static List<String> bodies(final List<StoredMessage> messages) {
        return messages.stream().map(TestStores::body).toList();
    }

    @Test
    void shouldStoreABatchContiguouslyInOrderWhileOthersSendToTheSameQueue() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final List<CompletableFuture<SendResult>> singles = new ArrayList<>();
            final Thread others = new Thread(() -> {
                for (int i = 0; i < 2000; i++) {
                    singles.add(store.send(member("t", "s" + i)));
                }
            });
            others.start();
            final List<List<SendResult>> batches = new ArrayList<>();
            for (int b = 0; b < 20; b++) {
                final int n = b;
                batches.add(store.sendBatch(batch("t", 25, i -> member("t", "x" + n + "-" + i))).join());
            }
            others.join();
            singles.forEach(CompletableFuture::join);

            for (List<SendResult> results : batches) {
                assertThat(results).hasSize(25);
                for (int k = 1; k < results.size(); k++) {
                    assertThat(results.get(k).queueOffset()).isEqualTo(results.get(0).queueOffset() + k);
                    assertThat(results.get(k).commitLogOffset()).isGreaterThan(results.get(k - 1).commitLogOffset());
                }
            }
            TestStores.awaitIndexed(store);
            final List<StoredMessage> all = readAll(store, "t", 0);
            assertThat(all).hasSize(2000 + 20 * 25);
            for (int b = 0; b < 20; b++) {
                final List<SendResult> results = batches.get(b);
                final int first = (int) results.get(0).queueOffset();
                final int n = b;
                assertThat(bodies(all.subList(first, first + 25)))
                        .containsExactlyElementsOf(IntStream.range(0, 25).mapToObj(i -> "x" + n + "-" + i).toList());
                for (int k = 0; k < 25; k++) {
                    final StoredMessage m = all.get(first + k);
                    assertThat(m.uniqueId()).isEqualTo(results.get(k).uniqueId()).isNotEmpty();
                    assertThat(m.commitLogOffset()).isEqualTo(results.get(k).commitLogOffset());
                    if (k > 0) {
                        final StoredMessage previous = all.get(first + k - 1);
                        assertThat(m.commitLogOffset()).as("no record between members")
                                .isEqualTo(previous.commitLogOffset() + previous.size());
                    }
                }
            }
        }
    }

    @Test
    void shouldStoreNothingOfABatchWithAMemberThatASingleSendWouldRefuse() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 2)).join();
            final int max = 256 * 1024;
            assertRefused(store, batch("t", 5, i -> i == 3 ? Message.builder("t").queueId(0)
                    .body(new byte[max + 1]).build() : null), StoreError.MESSAGE_TOO_LARGE, "batch member 3");
            assertRefused(store, batch("t", 5, i -> i == 4 ? Message.builder("t").queueId(0)
                    .property("bad", "a\u0001b").body(new byte[1]).build() : null), StoreError.ILLEGAL_MESSAGE,
                    "batch member 4");
            assertRefused(store, batch("t", 5, i -> i == 2 ? Message.builder("t").queueId(0)
                    .property(MessageProperties.DELAY_LEVEL, "2").body(new byte[1]).build() : null),
                    StoreError.ILLEGAL_MESSAGE, "delayed");
            assertRefused(store, batch("t", 5, i -> i == 2 ? Message.builder("t").queueId(0)
                    .property(MessageProperties.TRANSACTION_PREPARED, "true").body(new byte[1]).build() : null),
                    StoreError.ILLEGAL_MESSAGE, "transactional");
            assertRefused(store, batch("t", 5, i -> i == 1 ? Message.builder("t").queueId(1)
                    .body(new byte[1]).build() : null), StoreError.ILLEGAL_ARGUMENT, "one queue");
            assertRefused(store, batch("t", 5, i -> i == 1 ? Message.builder("other").queueId(0)
                    .body(new byte[1]).build() : null), StoreError.ILLEGAL_ARGUMENT, "one topic");
            // Each member is small enough, together they are not.
            assertRefused(store, batch("t", 5, i -> Message.builder("t").queueId(0).body(new byte[max / 4]).build()),
                    StoreError.MESSAGE_TOO_LARGE, "add up");
            assertRefused(store, List.of(), StoreError.ILLEGAL_ARGUMENT, "empty");

            // None of it was stored, and no queue offset was used up.
            final List<SendResult> ok = store.sendBatch(batch("t", 3, null)).join();
            assertThat(ok).extracting(SendResult::queueOffset).containsExactly(0L, 1L, 2L);
            TestStores.awaitIndexed(store);
            assertThat(bodies(readAll(store, "t", 0))).containsExactly("b0", "b1", "b2");
            assertThat(store.route("other")).isEmpty();
        }
    }

    private static void assertRefused(final MessageStore store, final List<Message> batch, final StoreError error,
                                      final String reason) {
        assertThatThrownBy(() -> store.sendBatch(batch).join())
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(error))
                .hasMessageContaining(reason);
    }

    @Test
    void shouldLeaveNothingOfABatchWhoseWriteFailedHalfWayNotEvenAfterARestart() {
        final FaultySegmentFiles medium = new FaultySegmentFiles();
        final StoreConfig config = TestStores.small(dir).build();
        try (MessageStore store = MessageStore.open(config, System::currentTimeMillis, medium)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            store.sendBatch(batch("t", 3, i -> member("t", "before-" + i))).join();
            medium.diskFull = true; // the write stops half-way through the batch's bytes, then fails
            assertThatThrownBy(() -> store.sendBatch(batch("t", 20, null)).join())
                    .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.DISK_FULL));
            medium.diskFull = false;
            TestStores.awaitIndexed(store);
            assertThat(bodies(readAll(store, "t", 0))).containsExactly("before-0", "before-1", "before-2");
        }
        // Recovery re-verifies the log from the checkpoint: the complete-looking first half of the failed batch is
        // still on disk past the end, and must not come back.
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(bodies(readAll(store, "t", 0))).containsExactly("before-0", "before-1", "before-2");
            assertThat(store.sendBatch(batch("t", 2, i -> member("t", "after-" + i))).join())
                    .extracting(SendResult::queueOffset).containsExactly(3L, 4L);
        }
    }

    @Test
    void shouldDropABatchWhoseFirstRecordACrashLeftUnfinished() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        final List<SendResult> sent;
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            store.send(member("t", "single")).join();
            sent = store.sendBatch(batch("t", 10, null)).join();
        }
        // What a crash between the two steps of a batch write leaves: every byte but the first record's magic.
        try (FileChannel ch = FileChannel.open(dir.resolve("commitlog").resolve(String.format("%020d", 0)),
                StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4), sent.get(0).commitLogOffset() + 4);
        }
        Files.writeString(dir.resolve("abort"), "");
        Files.delete(dir.resolve("config").resolve("checkpoint"));
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(bodies(readAll(store, "t", 0))).containsExactly("single");
        }
    }

    @Test
    void shouldStartANewSegmentForABatchTheCurrentOneCannotHold() {
        final StoreConfig config = TestStores.small(dir).build(); // 1 MiB segments, 256 KiB messages
        final List<SendResult> sent;
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            for (int i = 0; i < 4; i++) {
                store.send(Message.builder("t").queueId(0).body(new byte[220 * 1024]).build()).join();
            }
            sent = store.sendBatch(batch("t", 8, i -> Message.builder("t").queueId(0)
                    .body(("m" + i + "-" + "x".repeat(30_000)).getBytes(StandardCharsets.UTF_8)).build())).join();
            assertThat(sent.get(0).commitLogOffset()).isEqualTo(1 << 20);
        }
        try (MessageStore store = MessageStore.open(config)) {
            final List<StoredMessage> all = readAll(store, "t", 0);
            assertThat(all).hasSize(12);
            assertThat(all.subList(4, 12)).extracting(m -> TestStores.body(m).substring(0, 3))
                    .containsExactly("m0-", "m1-", "m2-", "m3-", "m4-", "m5-", "m6-", "m7-");
        }
    }
}
