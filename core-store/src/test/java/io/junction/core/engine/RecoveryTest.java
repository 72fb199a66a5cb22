package io.junction.core.engine;

import static io.junction.core.engine.TestStores.body;
import static io.junction.core.engine.TestStores.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.PullRequest;
import io.junction.core.PullStatus;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.io.FaultySegmentFiles;
import io.junction.core.message.Message;
import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecoveryTest {
    @TempDir
    Path dir;

    private List<SendResult> sendNumbered(final MessageStore store, final int from, final int count) {
        final List<SendResult> results = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            results.add(store.send(Message.builder("t").queueId(0).body(("message-" + i)
                    .getBytes(StandardCharsets.UTF_8)).build()).join());
        }
        return results;
    }

    private Path segment(final long base) {
        return dir.resolve("commitlog").resolve(String.format("%020d", base));
    }

    private void overwrite(final Path file, final long position, final byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), position);
        }
    }

    @Test
    void shouldCutATornLastRecordAndKeepEverythingBefore() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        final List<SendResult> sent;
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sent = sendNumbered(store, 0, 10);
        }
        final SendResult last = sent.get(9);
        // The last record's second half never reached the disk.
        final ByteBuffer zeros = ByteBuffer.allocate(40);
        overwrite(segment(0), last.commitLogOffset() + 30, zeros.array());
        Files.writeString(dir.resolve("abort"), ""); // as a crash leaves it
        // A crash can only tear what was written after the last checkpoint (which follows an fsync).
        Files.delete(dir.resolve("config").resolve("checkpoint"));
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(store.stats().recoveredFromCrash()).isTrue();
            assertThat(readAll(store, "t", 0)).extracting(TestStores::body)
                    .containsExactly("message-0", "message-1", "message-2", "message-3", "message-4", "message-5",
                            "message-6", "message-7", "message-8");
            assertThat(store.stats().logWriteOffset()).isEqualTo(last.commitLogOffset());
            assertThat(store.send(Message.builder("t").queueId(0).body("after".getBytes(StandardCharsets.UTF_8))
                    .build()).join().queueOffset()).isEqualTo(9);
        }
    }

    @Test
    void shouldClearEverythingPastTheRecoveredEndWithoutShrinkingTheSegment() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        final List<SendResult> sent;
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sent = sendNumbered(store, 0, 10);
        }
        final long end = sent.get(9).commitLogOffset();
        // The last record is torn (its middle never reached the disk), and stale bytes lie further on: a copy of a
        // valid record, as a segment written by an earlier, longer run could hold.
        overwrite(segment(0), end + 30, new byte[40]);
        final byte[] stale = new byte[(int) (sent.get(1).commitLogOffset() - sent.get(0).commitLogOffset())];
        try (FileChannel ch = FileChannel.open(segment(0), StandardOpenOption.READ)) {
            ch.read(ByteBuffer.wrap(stale), sent.get(0).commitLogOffset());
        }
        overwrite(segment(0), end + 8192, stale);
        Files.writeString(dir.resolve("abort"), "");
        Files.delete(dir.resolve("config").resolve("checkpoint"));
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(store.stats().logWriteOffset()).isEqualTo(end);
        }
        assertThat(Files.size(segment(0))).isEqualTo(config.segmentSize());
        final ByteBuffer tail = ByteBuffer.allocate(config.segmentSize() - (int) end);
        try (FileChannel ch = FileChannel.open(segment(0), StandardOpenOption.READ)) {
            while (tail.hasRemaining() && ch.read(tail, end + tail.position()) > 0) {
                // read the whole tail
            }
        }
        assertThat(tail.flip().remaining()).isEqualTo(config.segmentSize() - (int) end);
        while (tail.hasRemaining()) {
            assertThat(tail.get()).as("byte at log offset %d", end + tail.position() - 1).isZero();
        }
    }

    @Test
    void shouldGrowBackASegmentACrashLeftShortWhileItsTailWasBeingCleared() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        final List<SendResult> sent;
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sent = sendNumbered(store, 0, 5);
        }
        // Clearing a tail cuts the file at the log's end and then grows it back; a kill between the two steps.
        final long end = sent.get(4).commitLogOffset() + (sent.get(4).commitLogOffset() - sent.get(3).commitLogOffset());
        try (FileChannel ch = FileChannel.open(segment(0), StandardOpenOption.WRITE)) {
            ch.truncate(end);
        }
        Files.writeString(dir.resolve("abort"), "");
        Files.delete(dir.resolve("config").resolve("checkpoint"));
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(readAll(store, "t", 0)).extracting(TestStores::body)
                    .containsExactly("message-0", "message-1", "message-2", "message-3", "message-4");
            assertThat(Files.size(segment(0))).isEqualTo(config.segmentSize());
            sendNumbered(store, 5, 1);
        }
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(readAll(store, "t", 0)).hasSize(6);
        }
    }

    @Test
    void shouldStepOverADamagedRecordInRecoveryAndKeepEveryRecordAfterIt() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        final List<SendResult> sent;
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sent = sendNumbered(store, 0, 5);
        }
        // A flipped bit inside the second record, in the part recovery re-verifies after a crash: the records after
        // it were acknowledged too, so it must not be taken for a torn tail.
        flipBit(segment(0), sent.get(1).commitLogOffset() + 60);
        Files.writeString(dir.resolve("abort"), "");
        Files.delete(dir.resolve("config").resolve("checkpoint"));
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(store.stats().damagedRecords()).isEqualTo(1);
            assertThat(readAll(store, "t", 0)).extracting(TestStores::body)
                    .containsExactly("message-0", "message-2", "message-3", "message-4");
            assertThat(store.stats().logWriteOffset()).isEqualTo(sent.get(4).commitLogOffset()
                    + (sent.get(4).commitLogOffset() - sent.get(3).commitLogOffset()));
            assertThat(store.send(Message.builder("t").queueId(0).body("after".getBytes(StandardCharsets.UTF_8))
                    .build()).join().queueOffset()).isEqualTo(5);
        }
        Files.delete(dir.resolve("config").resolve("checkpoint"));
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(readAll(store, "t", 0)).extracting(TestStores::body)
                    .containsExactly("message-0", "message-2", "message-3", "message-4", "after");
        }
    }

    @Test
    void shouldDetectADamagedRecordOnReadSkipItAndServeTheRest() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        final List<SendResult> sent;
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sent = sendNumbered(store, 0, 5);
        }
        // Damage after a clean shutdown lies before the checkpoint: recovery does not re-verify it, reads do.
        flipBit(segment(0), sent.get(2).commitLogOffset() + sent.get(2).commitLogOffset() % 7 + 70);
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(store.stats().recoveredFromCrash()).isFalse();
            for (int pass = 0; pass < 3; pass++) { // each reader meets it; it is reported once
                assertThat(readAll(store, "t", 0)).extracting(TestStores::body)
                        .containsExactly("message-0", "message-1", "message-3", "message-4");
            }
            assertThat(store.stats().damagedRecords()).isEqualTo(1);
            assertThat(store.send(Message.builder("t").queueId(0).body("after".getBytes(StandardCharsets.UTF_8))
                    .build()).join().queueOffset()).isEqualTo(5);
            TestStores.awaitIndexed(store);
            assertThat(readAll(store, "t", 0)).extracting(TestStores::body).endsWith("message-4", "after");
        }
    }

    @Test
    void shouldVerifyTheCrcOfRecordsOfAnEarlierRunButNotOfThoseThisRunSealed() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final List<SendResult> sent = sendNumbered(store, 0, 3);
            TestStores.awaitIndexed(store);
            // A body bit flipped under a running store: this run computed the CRC from the bytes it wrote and does
            // not recompute it on reads (the structure is still checked), so the record is served as it now reads.
            flipBit(segment(0), sent.get(1).commitLogOffset() + RecordLayout.bodyLengthOffset(0) + 4 + 3);
            assertThat(readAll(store, "t", 0)).extracting(TestStores::body)
                    .containsExactly("message-0", "mescage-1", "message-2");
            assertThat(store.stats().damagedRecords()).isZero();
        }
        // The next run did not write it: every read verifies the CRC, and the damaged record is never served.
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(readAll(store, "t", 0)).extracting(TestStores::body)
                    .containsExactly("message-0", "message-2");
            assertThat(store.stats().damagedRecords()).isEqualTo(1);
        }
    }

    @Test
    void shouldKeepTheRecordsAfterADamagedBlankFillerAtASegmentEnd() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        final List<SendResult> sent;
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sent = new ArrayList<>();
            // Enough to roll into a second segment (the first ends with a blank filler).
            for (int i = 0; sent.isEmpty() || sent.get(sent.size() - 1).commitLogOffset() < config.segmentSize(); i++) {
                sent.add(store.send(Message.builder("t").queueId(0).body(new byte[4096]).build()).join());
            }
        }
        final SendResult lastInFirst = sent.stream().filter(r -> r.commitLogOffset() < config.segmentSize())
                .reduce((x, y) -> y).orElseThrow();
        final long fillerAt = lastInFirst.commitLogOffset() + (sent.get(1).commitLogOffset()
                - sent.get(0).commitLogOffset());
        overwrite(segment(0), fillerAt + 4, new byte[] {0x11, 0x22, 0x33, 0x44}); // the filler's magic
        Files.writeString(dir.resolve("abort"), "");
        Files.delete(dir.resolve("config").resolve("checkpoint"));
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(readAll(store, "t", 0)).hasSize(sent.size());
            assertThat(store.stats().damagedRecords()).isEqualTo(1);
        }
    }

    private void flipBit(final Path file, final long position) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
            ch.write(one, position);
        }
    }

    @Test
    void shouldRebuildConsumeQueuesAndIndexFromTheLog() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        final List<SendResult> sent;
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sent = sendNumbered(store, 0, 2000);
        }
        deleteTree(dir.resolve("consumequeue"));
        deleteTree(dir.resolve("index"));
        Files.delete(dir.resolve("config").resolve("checkpoint"));
        try (MessageStore store = MessageStore.open(config)) {
            final List<StoredMessage> all = readAll(store, "t", 0);
            assertThat(all).hasSize(2000);
            assertThat(body(all.get(1999))).isEqualTo("message-1999");
            assertThat(store.queryById("t", sent.get(1234).uniqueId()).join()).map(TestStores::body)
                    .contains("message-1234");
        }
    }

    @Test
    void shouldTreatASegmentCutOffWhileBeingCreatedAsEmpty() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        final List<SendResult> sent;
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sent = sendNumbered(store, 0, 3);
        }
        // A kill between creating the next segment file and sizing it leaves it empty.
        Files.createFile(segment(1 << 20));
        Files.delete(dir.resolve("config").resolve("checkpoint"));
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(readAll(store, "t", 0)).hasSize(3);
            assertThat(store.send(Message.builder("t").queueId(0).body(new byte[1]).build()).join().commitLogOffset())
                    .isGreaterThan(sent.get(2).commitLogOffset());
        }
    }

    @Test
    void shouldReportACorruptMetadataFileByName() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
        }
        final Path topics = dir.resolve("config").resolve("topics.dat");
        final byte[] bytes = Files.readAllBytes(topics);
        bytes[bytes.length / 2] ^= 0x40;
        Files.write(topics, bytes);
        assertThatThrownBy(() -> MessageStore.open(config)).isInstanceOf(StoreException.class)
                .hasMessageContaining("topics.dat").hasMessageContaining("checksum");
        // The failed open released the directory: a repaired store opens.
        Files.delete(topics);
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(store.route("t")).isEmpty();
        }
    }

    @Test
    void shouldFailSendsWhileTheDiskIsFullAndRecoverWhenSpaceReturns() {
        final FaultySegmentFiles medium = new FaultySegmentFiles();
        final StoreConfig config = TestStores.small(dir).flushMode(FlushMode.SYNC).build();
        try (MessageStore store = MessageStore.open(config, System::currentTimeMillis, medium)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sendNumbered(store, 0, 5);
            medium.diskFull = true;
            assertThatThrownBy(() -> store.send(Message.builder("t").queueId(0)
                    .body("lost".getBytes(StandardCharsets.UTF_8)).build()).join())
                    .isInstanceOf(CompletionException.class)
                    .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.DISK_FULL))
                    .hasMessageContaining("disk full");
            medium.diskFull = false;
            assertThat(sendNumbered(store, 5, 5).get(0).queueOffset()).isEqualTo(5);
            TestStores.awaitIndexed(store);
            assertThat(readAll(store, "t", 0)).hasSize(10);
        }
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(readAll(store, "t", 0)).extracting(TestStores::body).containsExactly("message-0", "message-1",
                    "message-2", "message-3", "message-4", "message-5", "message-6", "message-7", "message-8",
                    "message-9");
        }
    }

    @Test
    void shouldStopTakingWritesAfterAFailedFsync() {
        final FaultySegmentFiles medium = new FaultySegmentFiles();
        final StoreConfig config = TestStores.small(dir).flushMode(FlushMode.SYNC).build();
        try (MessageStore store = MessageStore.open(config, System::currentTimeMillis, medium)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            sendNumbered(store, 0, 3);
            medium.forceFails = true;
            assertThatThrownBy(() -> sendNumbered(store, 3, 1)).satisfies(
                    e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.IO_ERROR));
            medium.forceFails = false;
            assertThatThrownBy(() -> sendNumbered(store, 4, 1)).satisfies(
                    e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.IO_ERROR))
                    .hasMessageContaining("restart");
        }
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(store.stats().recoveredFromCrash()).isTrue();
            assertThat(readAll(store, "t", 0)).extracting(TestStores::body)
                    .startsWith("message-0", "message-1", "message-2");
        }
    }

    @Test
    void shouldDeleteExpiredSegmentsAndMoveQueueMinimums() {
        final long[] now = {1_000_000_000L};
        final StoreConfig config = TestStores.small(dir).retention(Duration.ofHours(1)).build();
        try (MessageStore store = MessageStore.open(config, () -> now[0],
                io.junction.core.io.MappedSegmentFile.FACTORY)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final byte[] body = new byte[50_000];
            for (int i = 0; i < 60; i++) {
                store.send(Message.builder("t").queueId(0).body(body).build()).join();
            }
            now[0] += Duration.ofHours(2).toMillis();
            store.send(Message.builder("t").queueId(0).body("fresh".getBytes(StandardCharsets.UTF_8)).build()).join();
            TestStores.awaitIndexed(store);
            final long segmentsBefore = store.stats().logMinOffset();
            store.runRetention();
            assertThat(store.stats().logMinOffset()).isGreaterThan(segmentsBefore);
            final long min = store.minOffset("t", 0);
            assertThat(min).isGreaterThan(0);
            assertThat(store.pull(new PullRequest("g", "t", 0, 0, 1, null, 0)).join().status())
                    .isEqualTo(PullStatus.OFFSET_TOO_SMALL);
            assertThat(body(readAll(store, "t", 0).get(readAll(store, "t", 0).size() - 1))).isEqualTo("fresh");
        }
    }

    private static void deleteTree(final Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
