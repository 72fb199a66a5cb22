package io.junction.core.engine;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Small-file store configurations and read helpers for tests. */
public final class TestStores {
    private TestStores() {
    }

    /** A store with 1 MiB segments and small queue and index files. */
    public static StoreConfig.Builder small(final Path dir) {
        return StoreConfig.builder(dir)
                .segmentSize(1 << 20)
                .queueFileEntries(1024)
                .indexFileEntries(4096)
                .maxMessageSize(256 * 1024)
                .flushInterval(Duration.ofMillis(50))
                .diskFullRatio(1.01)
                .maxDiskUsedRatio(1.01);
    }

    public static Message text(final String topic, final String body) {
        return Message.builder(topic).body(body.getBytes(StandardCharsets.UTF_8)).build();
    }

    public static String body(final StoredMessage m) {
        return new String(m.bodyBytes(), StandardCharsets.UTF_8);
    }

    /** Applies retention now, as the store's maintenance does every few seconds. */
    public static void applyRetention(final MessageStore store) {
        store.runRetention();
    }

    /** Waits until everything written is indexed. */
    public static void awaitIndexed(final MessageStore store) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (store.dispatchedOffset() < store.stats().logFlushedOffset()
                || store.dispatchedOffset() < store.stats().logWriteOffset() && System.nanoTime() < deadline) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not indexed in time");
            }
            Thread.onSpinWait();
        }
    }

    /** Reads every message of a queue from its minimum offset. */
    public static List<StoredMessage> readAll(final MessageStore store, final String topic, final int queueId) {
        final List<StoredMessage> all = new ArrayList<>();
        long offset = store.minOffset(topic, queueId);
        while (true) {
            final PullResult r = store.pull(new PullRequest("test", topic, queueId, offset, 32, null, 0)).join();
            all.addAll(r.messages());
            if (r.nextOffset() == offset || r.nextOffset() >= r.maxOffset() && r.messages().isEmpty()) {
                return all;
            }
            offset = r.nextOffset();
            if (offset >= r.maxOffset()) {
                return all;
            }
        }
    }
}
