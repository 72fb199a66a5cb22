package io.junction.core.timer;

import static io.junction.core.engine.TestStores.body;
import static io.junction.core.engine.TestStores.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.PullRequest;
import io.junction.core.PullStatus;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.TestStores;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.MetadataFile;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimerStoreTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(T0);

    private MessageStore open(final StoreConfig config) {
        return MessageStore.open(config, clock::get, MappedSegmentFile.FACTORY);
    }

    private MessageStore open() {
        return open(TestStores.small(dir).build());
    }

    private static Message delayed(final String topic, final int queueId, final String body, final String property,
                                   final long value) {
        return Message.builder(topic).queueId(queueId).tag("TagA").property("color", "red")
                .property(property, Long.toString(value)).body(body.getBytes(StandardCharsets.UTF_8)).build();
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

    private static List<StoredMessage> readTopic(final MessageStore store, final String topic) {
        TestStores.awaitIndexed(store);
        final List<StoredMessage> all = new ArrayList<>();
        final int queues = store.route(topic).map(TopicConfig::queueCount).orElse(0);
        for (int q = 0; q < queues; q++) {
            all.addAll(readAll(store, topic, q));
        }
        return all;
    }

    private static boolean delivered(final MessageStore store, final String topic, final String body) {
        return readTopic(store, topic).stream().anyMatch(m -> body(m).equals(body));
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
    void shouldNotDeliverBeforeItsTimeAndDeliverRightAfter() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 2)).join();
            final long at = T0 + 10_000;
            final SendResult sent = store.send(delayed("t", 1, "late", MessageProperties.DELIVER_AT, at)).join();
            assertThat(sent.topic()).isEqualTo("t");
            assertThat(sent.queueId()).isEqualTo(1);
            assertThat(sent.uniqueId()).hasSize(32);
            // A probe due 1 ms earlier: once it is out, a tick has seen the clock at at - 1.
            store.send(delayed("t", 0, "probe", MessageProperties.DELIVER_AT, at - 1)).join();
            await("both timers loaded", () -> store.pendingTimers() == 2);
            assertThat(readTopic(store, "t")).isEmpty();

            clock.set(at - 1);
            await("the probe", () -> delivered(store, "t", "probe"));
            assertThat(readAll(store, "t", 1)).isEmpty();
            assertThat(store.pendingTimers()).isEqualTo(1);

            clock.set(at);
            await("the delayed message", () -> delivered(store, "t", "late"));
            final StoredMessage m = readAll(store, "t", 1).get(0);
            assertThat(body(m)).isEqualTo("late");
            assertThat(m.uniqueId()).isEqualTo(sent.uniqueId());
            assertThat(m.tag()).isEqualTo("TagA");
            assertThat(m.property("color")).isEqualTo("red");
            assertThat(m.property(MessageProperties.DELIVER_AT)).isEqualTo(Long.toString(at));
            assertThat(m.properties()).doesNotContainKeys(MessageProperties.REAL_TOPIC,
                    MessageProperties.REAL_QUEUE_ID);
            assertThat(m.storeTimestamp()).isEqualTo(at);
            assertThat(store.queryById("t", sent.uniqueId()).join()).map(StoredMessage::body).isPresent();
        }
    }

    @Test
    void shouldDeliverOnDelayLevelAndRelativeProperties() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            store.send(delayed("t", 0, "level3", MessageProperties.DELAY_LEVEL, 3)).join();
            store.send(delayed("t", 0, "sec4", MessageProperties.DELAY_SEC, 4)).join();
            store.send(delayed("t", 0, "ms2500", MessageProperties.DELAY_MS, 2500)).join();
            await("loaded", () -> store.pendingTimers() == 3);
            clock.set(T0 + 2500);
            await("ms2500", () -> delivered(store, "t", "ms2500"));
            clock.set(T0 + 4000);
            await("sec4", () -> delivered(store, "t", "sec4"));
            assertThat(readTopic(store, "t")).extracting(TestStores::body).containsExactly("ms2500", "sec4");
            clock.set(T0 + 10_000);
            await("level3", () -> delivered(store, "t", "level3"));
            final List<StoredMessage> delivered = readTopic(store, "t");
            // Each keeps the delay it was sent with (RocketMQ does: a 4.x consumer reads getDelayTimeLevel()) and
            // the time it was due, but not the routing to its real topic.
            final StoredMessage level3 = delivered.get(2);
            assertThat(level3.property(MessageProperties.DELAY_LEVEL)).isEqualTo("3");
            assertThat(level3.property(MessageProperties.DELIVER_AT)).isEqualTo(Long.toString(T0 + 10_000));
            assertThat(delivered.get(1).property(MessageProperties.DELAY_SEC)).isEqualTo("4");
            assertThat(delivered.get(1).property(MessageProperties.DELIVER_AT)).isEqualTo(Long.toString(T0 + 4000));
            assertThat(delivered.get(0).property(MessageProperties.DELAY_MS)).isEqualTo("2500");
            assertThat(delivered).allSatisfy(m -> assertThat(m.properties()).containsEntry("color", "red")
                    .doesNotContainKeys(MessageProperties.REAL_TOPIC, MessageProperties.REAL_QUEUE_ID));
        }
    }

    @Test
    void shouldKeepTheLevelAndDropTheTimerPropertiesALevelOverrode() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final Message both = Message.builder("t").queueId(0).body("level1".getBytes(StandardCharsets.UTF_8))
                    .property(MessageProperties.DELAY_LEVEL, "1").property(MessageProperties.DELAY_SEC, "600")
                    .property(MessageProperties.DELAY_MS, "600000").build();
            store.send(both).join();
            await("loaded", () -> store.pendingTimers() == 1);
            clock.set(T0 + 1000);
            await("level1", () -> delivered(store, "t", "level1"));
            final StoredMessage m = readTopic(store, "t").get(0);
            assertThat(m.property(MessageProperties.DELAY_LEVEL)).isEqualTo("1");
            assertThat(m.property(MessageProperties.DELIVER_AT)).isEqualTo(Long.toString(T0 + 1000));
            assertThat(m.properties()).doesNotContainKeys(MessageProperties.DELAY_SEC, MessageProperties.DELAY_MS);
        }
    }

    @Test
    void shouldDeliverAPastDeliverTimeAtOnce() {
        try (MessageStore store = open()) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final SendResult r = store.send(delayed("t", 0, "past", MessageProperties.DELIVER_AT, T0 - 5000)).join();
            assertThat(r.topic()).isEqualTo("t");
            assertThat(r.queueOffset()).isZero();
            store.send(delayed("t", 0, "now", MessageProperties.DELIVER_AT, T0)).join();
            store.send(delayed("t", 0, "zero", MessageProperties.DELAY_MS, 0)).join();
            assertThat(readTopic(store, "t")).extracting(TestStores::body).containsExactly("past", "now", "zero");
            assertThat(store.pendingTimers()).isZero();
        }
    }

    @Test
    void shouldRefuseADeliverTimeBeyondTheMaximumDelay() {
        try (MessageStore store = open(TestStores.small(dir).maxDelay(Duration.ofHours(1)).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            assertThat(errorOf(store.send(delayed("t", 0, "x", MessageProperties.DELIVER_AT, T0 + 3_600_001))))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(errorOf(store.send(delayed("t", 0, "x", MessageProperties.DELAY_LEVEL, 18))))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(errorOf(store.send(delayed("t", 0, "x", MessageProperties.DELAY_SEC, 3601))))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(store.send(delayed("t", 0, "x", MessageProperties.DELIVER_AT, T0 + 3_600_000)).join().topic())
                    .isEqualTo("t");
        }
        assertThat(StoreConfig.builder(dir).build().maxDelay()).isEqualTo(Duration.ofHours(24));
    }

    @Test
    void shouldHideTheTimerTopicAndRefuseSendsToIt() {
        try (MessageStore store = open()) {
            store.send(delayed("t", Message.ANY_QUEUE, "x", MessageProperties.DELAY_LEVEL, 1)).join();
            assertThat(errorOf(store.send(TestStores.text(TimerService.TOPIC, "sneaky"))))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(store.topics().list()).extracting(TopicConfig::name).doesNotContain(TimerService.TOPIC);
            assertThat(store.route(TimerService.TOPIC)).isEmpty();
            assertThat(store.pull(new PullRequest("g", TimerService.TOPIC, 0, 0, 32, null, 0)).join().status())
                    .isEqualTo(PullStatus.NO_SUCH_QUEUE);
            assertThat(readTopic(store, "t")).isEmpty();
        }
    }

    @Test
    void shouldKeepTenThousandTimersAcrossARestartAndFireEachOnce() {
        final StoreConfig config = TestStores.small(dir).defaultQueueCount(4).build();
        final int n = 10_000;
        final Set<String> ids = new HashSet<>();
        try (MessageStore store = open(config)) {
            final List<CompletableFuture<SendResult>> sends = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sends.add(store.send(delayed("many", Message.ANY_QUEUE, "m" + i, MessageProperties.DELIVER_AT,
                        T0 + 1000 + i)));
            }
            sends.forEach(f -> ids.add(f.join().uniqueId()));
            assertThat(ids).hasSize(n);
        }
        try (MessageStore store = open(config)) {
            await("reloaded", () -> store.pendingTimers() == n);
            assertThat(readTopic(store, "many")).isEmpty();
            clock.set(T0 + 1000 + n);
            await("all fired", () -> readTopic(store, "many").size() >= n);
            // A probe due after all of them: once it is out, every earlier timer has been handled.
            store.send(delayed("probe", 0, "p1", MessageProperties.DELAY_MS, 1)).join();
            clock.addAndGet(1);
            await("probe", () -> delivered(store, "probe", "p1"));
            assertExactlyOnce(readTopic(store, "many"), ids);
        }
        // And once more: nothing fires a second time after another restart.
        try (MessageStore store = open(config)) {
            store.send(delayed("probe", 0, "p2", MessageProperties.DELAY_MS, 1)).join();
            clock.addAndGet(1);
            await("probe", () -> delivered(store, "probe", "p2"));
            assertExactlyOnce(readTopic(store, "many"), ids);
            assertThat(store.pendingTimers()).isZero();
        }
    }

    private static void assertExactlyOnce(final List<StoredMessage> read, final Set<String> ids) {
        final Map<String, Integer> counts = new HashMap<>();
        read.forEach(m -> counts.merge(m.uniqueId(), 1, Integer::sum));
        assertThat(counts.keySet()).isEqualTo(ids);
        assertThat(counts.values()).allMatch(c -> c == 1);
        assertThat(read).hasSize(ids.size());
    }

    @Test
    void shouldNotDeliverTwiceATimerThatFiredBeforeACrash() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        final Path progress = dir.resolve("config").resolve("timer-progress.dat");
        final String early;
        try (MessageStore store = open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            early = store.send(delayed("t", 0, "early", MessageProperties.DELIVER_AT, T0 + 1000)).join().uniqueId();
            store.send(delayed("t", 0, "later", MessageProperties.DELIVER_AT, T0 + 2000)).join();
            clock.set(T0 + 1500);
            await("early", () -> delivered(store, "t", "early"));
        }
        // The crash came before the watermark was saved: the progress file is behind (here: never written).
        Files.deleteIfExists(progress);
        Files.writeString(dir.resolve("abort"), "");
        try (MessageStore store = open(config)) {
            store.send(delayed("t", 0, "probe", MessageProperties.DELIVER_AT, T0 + 3000)).join();
            clock.set(T0 + 3000);
            await("probe", () -> delivered(store, "t", "probe"));
            assertThat(readTopic(store, "t")).extracting(TestStores::body).containsExactly("early", "later", "probe");
            assertThat(readTopic(store, "t").get(0).uniqueId()).isEqualTo(early);
        }
    }

    private long savedWatermark() {
        return new MetadataFile(dir.resolve("config").resolve(TimerService.PROGRESS_FILE),
                TimerService.PROGRESS_VERSION).read().map(ByteBuffer::getLong).orElse(-1L);
    }

    @Test
    void shouldSaveTheWatermarkAtCloseAndReloadOnlyWhatDidNotFire() {
        final StoreConfig config = TestStores.small(dir).build();
        try (MessageStore store = open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            for (int i = 0; i < 5; i++) {
                store.send(delayed("t", 0, "m" + i, MessageProperties.DELIVER_AT, T0 + 1000 * (i + 1))).join();
            }
            await("loaded", () -> store.pendingTimers() == 5);
            clock.set(T0 + 3000);
            await("three fired", () -> readTopic(store, "t").size() == 3);
        }
        assertThat(savedWatermark()).isEqualTo(3);
        try (MessageStore store = open(config)) {
            await("the two left reloaded", () -> store.pendingTimers() == 2);
            clock.set(T0 + 5000);
            await("the rest", () -> readTopic(store, "t").size() == 5);
            store.send(delayed("t", 0, "probe", MessageProperties.DELAY_MS, 1)).join();
            clock.addAndGet(1);
            await("probe", () -> delivered(store, "t", "probe"));
            assertThat(readTopic(store, "t")).extracting(TestStores::body)
                    .containsExactly("m0", "m1", "m2", "m3", "m4", "probe");
        }
        assertThat(savedWatermark()).isEqualTo(6);
    }

    @Test
    void shouldDeliverAgainATimerWhoseDeliveredCopyWasLostInACrash() throws IOException {
        final StoreConfig config = TestStores.small(dir).build();
        final String id;
        final long copyOffset;
        try (MessageStore store = open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            id = store.send(delayed("t", 0, "once", MessageProperties.DELIVER_AT, T0 + 1000)).join().uniqueId();
            clock.set(T0 + 1000);
            await("fired", () -> delivered(store, "t", "once"));
            copyOffset = readAll(store, "t", 0).get(0).commitLogOffset();
        }
        // The delivered copy was the log's torn tail; the watermark cannot have been saved past it.
        try (FileChannel ch = FileChannel.open(dir.resolve("commitlog").resolve(String.format("%020d", 0)),
                StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(40), copyOffset + 30);
        }
        Files.delete(dir.resolve("config").resolve("checkpoint"));
        Files.delete(dir.resolve("config").resolve(TimerService.PROGRESS_FILE));
        Files.writeString(dir.resolve("abort"), "");
        try (MessageStore store = open(config)) {
            await("fired again", () -> delivered(store, "t", "once"));
            final List<StoredMessage> read = readTopic(store, "t");
            assertThat(read).hasSize(1);
            assertThat(read.get(0).uniqueId()).isEqualTo(id);
            assertThat(read.get(0).commitLogOffset()).isEqualTo(copyOffset);
        }
    }
}
