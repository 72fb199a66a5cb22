package io.junction.core.engine;

import static io.junction.core.engine.TestStores.body;
import static io.junction.core.engine.TestStores.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.io.MappedSegmentFile;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactedRetentionTest {
    @TempDir
    Path dir;

    private static Message keyed(final String topic, final String key, final String value, final int padding) {
        final byte[] text = value.getBytes(StandardCharsets.UTF_8);
        final byte[] body = new byte[text.length + padding];
        System.arraycopy(text, 0, body, 0, text.length);
        return Message.builder(topic).queueId(0).keys(key).property(MessageProperties.MESSAGE_GROUP, key)
                .body(body).build();
    }

    private static String value(final StoredMessage m) {
        return body(m).replace("\0", "");
    }

    @Test
    void shouldKeepTheLatestValueOfEachKeyThroughRetention() {
        final long[] now = {1_000_000_000L};
        final StoreConfig config = TestStores.small(dir).retention(Duration.ofHours(1)).build();
        try (MessageStore store = MessageStore.open(config, () -> now[0], MappedSegmentFile.FACTORY)) {
            store.topics().createOrUpdate(new TopicConfig("table", 1, TopicType.NORMAL, TopicConfig.PERM_READ_WRITE,
                    Map.of(TopicConfig.CLEANUP_POLICY, TopicConfig.COMPACT))).join();
            store.topics().createOrUpdate(TopicConfig.of("stream", 1)).join();
            // Six rounds over five keys, then the tombstone of k4, all in the first segment; then 2.4 MB of another
            // topic fill the next segments.
            for (int round = 0; round < 6; round++) {
                for (int k = 0; k < 5; k++) {
                    store.send(keyed("table", "k" + k, "v" + round + "-" + k, 1_000)).join();
                }
            }
            store.send(Message.builder("table").queueId(0).keys("k4").property(MessageProperties.MESSAGE_GROUP, "k4")
                    .property(MessageProperties.TOMBSTONE, "true").body(new byte[0]).build()).join();
            for (int i = 0; i < 60; i++) {
                store.send(keyed("stream", "s", "s" + i, 40_000)).join();
            }
            TestStores.awaitIndexed(store); // the queue's end is the dispatcher's: wait for it, not for the sends
            final long endBefore = store.maxOffset("table", 0);
            now[0] += Duration.ofHours(2).toMillis();
            store.send(TestStores.text("stream", "fresh")).join();
            TestStores.awaitIndexed(store);
            final long logMinBefore = store.stats().logMinOffset();

            store.runRetention();
            TestStores.awaitIndexed(store);

            assertThat(store.stats().logMinOffset()).isGreaterThan(logMinBefore);
            // The originals went with their segment; the latest value of each live key came back after the old end,
            // in the order of the originals; the deleted key k4 is gone.
            assertThat(store.minOffset("table", 0)).isEqualTo(endBefore);
            final List<StoredMessage> table = readAll(store, "table", 0);
            assertThat(table).extracting(StoredMessage::keys).containsExactly("k0", "k1", "k2", "k3");
            assertThat(table).extracting(CompactedRetentionTest::value)
                    .containsExactly("v5-0", "v5-1", "v5-2", "v5-3");
            assertThat(table).extracting(StoredMessage::queueOffset)
                    .containsExactly(endBefore, endBefore + 1, endBefore + 2, endBefore + 3);

            // A second pass copies nothing more: the copies are the latest values now.
            store.runRetention();
            TestStores.awaitIndexed(store);
            assertThat(store.maxOffset("table", 0)).isEqualTo(endBefore + 4);
            // An ordinary topic loses its old messages as before.
            final List<StoredMessage> stream = readAll(store, "stream", 0);
            assertThat(stream).extracting(TestStores::body).last().isEqualTo("fresh");
            assertThat(stream.size()).isLessThan(61);
        }
    }

    @Test
    void shouldCopyNothingWhenNoTopicIsCompacted() {
        final long[] now = {1_000_000_000L};
        final StoreConfig config = TestStores.small(dir).retention(Duration.ofHours(1)).build();
        try (MessageStore store = MessageStore.open(config, () -> now[0], MappedSegmentFile.FACTORY)) {
            store.topics().createOrUpdate(TopicConfig.of("stream", 1)).join();
            for (int i = 0; i < 60; i++) {
                store.send(keyed("stream", "k", "s" + i, 40_000)).join();
            }
            now[0] += Duration.ofHours(2).toMillis();
            store.send(TestStores.text("stream", "fresh")).join();
            TestStores.awaitIndexed(store);
            final long end = store.maxOffset("stream", 0);
            store.runRetention();
            TestStores.awaitIndexed(store);
            assertThat(store.maxOffset("stream", 0)).isEqualTo(end);
        }
    }
}
