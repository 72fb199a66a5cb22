package io.junction.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The compacted table over a real store: replay, compaction by garbage and by age, and ordering against changes. */
class CompactedLogTest {
    private static final String TOPIC = "%MQTT%TEST";
    private static final String KEY = "k";

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(System.currentTimeMillis());
    private MessageStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private CompactedLog open() throws Exception {
        if (store != null) {
            store.close();
        }
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(16 << 20).maxMessageSize(64 * 1024).flushInterval(Duration.ofMillis(20))
                .diskFullRatio(1.01).maxDiskUsedRatio(1.01).build());
        final CompactedLog log = new CompactedLog(store, TOPIC, KEY, clock::get);
        log.load().get(10, TimeUnit.SECONDS);
        return log;
    }

    private void awaitQueued(final long count) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (store.maxOffset(TOPIC, 0) < count && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(store.maxOffset(TOPIC, 0)).isEqualTo(count);
    }

    private static byte[] bytes(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, String> contents(final CompactedLog log) {
        final Map<String, String> out = new HashMap<>();
        for (Map.Entry<String, CompactedLog.Entry> e : log.entries()) {
            out.put(e.getKey(), new String(e.getValue().body(), StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void shouldReplayTheLastRecordOfEveryKeyAndForgetRemovedOnes() throws Exception {
        CompactedLog log = open();
        log.put("a", Map.of("x", "1"), bytes("a1")).join();
        log.put("b", Map.of(), bytes("b1")).join();
        log.put("a", Map.of("x", "2"), bytes("a2")).join();
        log.remove("b").join();
        log.put("c", Map.of(), bytes("c1")).join();

        log = open();
        assertThat(contents(log)).isEqualTo(Map.of("a", "a2", "c", "c1"));
        assertThat(log.get("a").properties()).containsEntry("x", "2").containsEntry(KEY, "a");
        assertThat(log.compactIfDue()).as("five records are no garbage worth compacting").isNull();
    }

    @Test
    void shouldCompactWhenGarbageOutgrowsTheLiveRecordsAndReplayOnlyFromTheCopies() throws Exception {
        CompactedLog log = open();
        CompletableFuture<?> last = null;
        for (int i = 0; i < 3000; i++) {
            last = log.put("key-" + (i % 10), Map.of(), bytes("v" + i));
        }
        last.join();
        awaitQueued(3000); // the consume queue follows the acknowledgement a moment later
        final CompletableFuture<Void> compaction = log.compactIfDue();
        assertThat(compaction).isNotNull();
        compaction.get(10, TimeUnit.SECONDS);
        assertThat(store.queryOffset(TOPIC + "-start", TOPIC, 0)).isEqualTo(3000);
        awaitQueued(3010);
        assertThat(log.compactIfDue()).as("nothing to compact right after compacting").isNull();

        log = open();
        final Map<String, String> expected = new HashMap<>();
        for (int i = 2990; i < 3000; i++) {
            expected.put("key-" + (i % 10), "v" + i);
        }
        assertThat(contents(log)).isEqualTo(expected);
    }

    @Test
    void shouldCopyRecordsForwardBeforeHalfTheRetentionPasses() throws Exception {
        final CompactedLog log = open();
        log.put("old", Map.of(), bytes("kept")).join();
        assertThat(log.compactIfDue()).isNull();
        clock.addAndGet(store.retention().toMillis() / 2 + 1);
        final CompletableFuture<Void> compaction = log.compactIfDue();
        assertThat(compaction).as("a record older than half the retention is copied").isNotNull();
        compaction.get(10, TimeUnit.SECONDS);
        assertThat(log.get("old").writtenAt()).isEqualTo(clock.get());
        assertThat(store.queryOffset(TOPIC + "-start", TOPIC, 0)).isEqualTo(1);
        assertThat(log.compactIfDue()).isNull();
    }

    @Test
    void shouldKeepAChangeIssuedWhileCompactionRuns() throws Exception {
        CompactedLog log = open();
        for (int i = 0; i < 100; i++) {
            log.put("key-" + i, Map.of(), bytes("before"));
        }
        final CompletableFuture<Void> compaction = log.compact();
        log.put("key-7", Map.of(), bytes("after")); // issued after the copies: must win on replay
        log.remove("key-8");
        compaction.get(10, TimeUnit.SECONDS);
        log.put("key-9", Map.of(), bytes("later")).join();

        log = open();
        final Map<String, String> got = contents(log);
        assertThat(got).hasSize(99).containsEntry("key-7", "after").containsEntry("key-9", "later")
                .containsEntry("key-0", "before").doesNotContainKey("key-8");
    }
}
