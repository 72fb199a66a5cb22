package io.junction.broker.msgtrace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.broker.msgtrace.MessageTraceReader.TraceEvent;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Against a real store: records of many messages land in a few trace messages, each found by its message id. */
class TraceBatchWriterTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);

    @TempDir
    Path dir;
    private MessageStore store;

    @BeforeEach
    void open() {
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(1 << 22).maxMessageSize(1 << 20).build());
        MessageTraceWriter.createTraceTopic(store).join();
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void shouldStoreManyRecordsInFewTraceMessagesEachFoundByItsMessageId() {
        final int messages = 500;
        try (TraceBatchWriter writer = new TraceBatchWriter(store, new TraceBatchWriter.Settings(
                10_000, 100, Duration.ofMillis(50), 4))) {
            for (int i = 0; i < messages; i++) {
                final String id = id(i);
                writer.offer(MessageTraceWriter.DEFAULT_TOPIC, TraceRecords.subBefore(1000 + i, "g", "r" + i, id, 0,
                        "order-" + i), id, "order-" + i);
            }

            await().atMost(DEADLINE).until(() -> writer.stored() == messages);
            assertThat(writer.dropped()).isZero();
        }
        final long traceMessages = store.maxOffset(MessageTraceWriter.DEFAULT_TOPIC, 0);
        assertThat(traceMessages).isBetween(5L, 50L); // a hundred records to a message, not one each
        final MessageTraceReader reader = new MessageTraceReader(store);
        for (final int i : new int[] {0, 137, 499}) {
            final List<TraceEvent> events = reader.find(MessageTraceWriter.DEFAULT_TOPIC, id(i)).join();
            assertThat(events).singleElement().satisfies(e -> {
                assertThat(e.type()).isEqualTo("SubBefore");
                assertThat(e.timestamp()).isEqualTo(1000 + i);
            });
            assertThat(store.queryByKey(MessageTraceWriter.DEFAULT_TOPIC, "order-" + i, 10, 0, Long.MAX_VALUE)
                    .join()).hasSize(1); // the message's own key finds it too
        }
    }

    @Test
    void shouldWriteWhatIsQueuedWhenClosedAndDropWhatComesAfter() {
        final TraceBatchWriter writer = new TraceBatchWriter(store, new TraceBatchWriter.Settings(
                1000, 100, Duration.ofSeconds(30), 1));
        for (int i = 0; i < 10; i++) {
            writer.offer(MessageTraceWriter.DEFAULT_TOPIC, TraceRecords.subBefore(i, "g", "r", id(i), 0, null), id(i),
                    null);
        }

        writer.close();
        writer.offer(MessageTraceWriter.DEFAULT_TOPIC, TraceRecords.subBefore(99, "g", "r", id(99), 0, null), id(99),
                null);

        await().atMost(DEADLINE).until(() -> writer.stored() == 10);
        assertThat(writer.dropped()).isEqualTo(1);
    }

    @Test
    void shouldCountTheRecordsOfATraceMessageTheStoreRefuses() {
        try (MessageStore small = MessageStore.open(StoreConfig.builder(dir.resolve("small")).segmentSize(1 << 20)
                .maxMessageSize(512).build());
             TraceBatchWriter writer = new TraceBatchWriter(small, new TraceBatchWriter.Settings(1000, 100,
                     Duration.ofMillis(5), 4))) {
            MessageTraceWriter.createTraceTopic(small).join();
            final String record = TraceRecords.subBefore(1, "g", "r", id(1), 0, "x".repeat(600)); // body > 512 bytes

            writer.offer(MessageTraceWriter.DEFAULT_TOPIC, record, id(1), null);

            await().atMost(DEADLINE).until(() -> writer.dropped() == 1);
            assertThat(writer.stored()).isZero();
            assertThat(small.maxOffset(MessageTraceWriter.DEFAULT_TOPIC, 0)).isZero();
        }
    }

    private static String id(final int i) {
        return String.format("7F000001%024X", i);
    }
}
