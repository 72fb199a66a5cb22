package io.junction.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PullRequest;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An idempotent producer's batch sent again after a restart of the front-end (its producer states gone, the store
 * kept) is answered with its first offset and not stored twice; the producer's next batch follows on.
 */
class IdempotenceAcrossRestartTest {
    /** A producer id handed out before this run (ids of a run start at its start time shifted left 20 bits). */
    private static final long EARLIER_PRODUCER = 4242L;

    @TempDir
    Path dir;

    private MessageStore store;

    @BeforeEach
    void open() throws Exception {
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(64 << 20)
                .maxMessageSize(1 << 20).flushInterval(Duration.ofMillis(50)).diskFullRatio(1.01)
                .maxDiskUsedRatio(1.01).build());
        store.topics().createOrUpdate(TopicConfig.of("t", 2)).get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void shouldAnswerABatchSentAgainAfterARestartWithItsFirstOffset() throws Exception {
        final MemoryRecords first = KafkaConnectionTest.idempotentBatch(EARLIER_PRODUCER, 0, "a", "b", "c");
        final long base;
        try (KafkaWire wire = KafkaWire.over(store, KafkaWire.settings(1 << 20));
             KafkaWire.Client c = wire.connect()) {
            final ProduceResponseData.PartitionProduceResponse r = produce(c, first);
            assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.NONE);
            base = r.baseOffset();
        }
        try (KafkaWire restarted = KafkaWire.over(store, KafkaWire.settings(1 << 20));
             KafkaWire.Client c = restarted.connect()) {
            final ProduceResponseData.PartitionProduceResponse again = produce(c,
                    MemoryRecords.readableRecords(first.buffer().duplicate()));
            assertThat(Errors.forCode(again.errorCode())).isEqualTo(Errors.NONE);
            assertThat(again.baseOffset()).isEqualTo(base);
            final ProduceResponseData.PartitionProduceResponse next = produce(c,
                    KafkaConnectionTest.idempotentBatch(EARLIER_PRODUCER, 3, "d"));
            assertThat(Errors.forCode(next.errorCode())).isEqualTo(Errors.NONE);
            assertThat(next.baseOffset()).isEqualTo(base + 3);
            // A gap after the restored sequence is refused as before the restart.
            assertThat(Errors.forCode(produce(c, KafkaConnectionTest.idempotentBatch(EARLIER_PRODUCER, 9, "x"))
                    .errorCode())).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        }
        assertThat(store.pull(new PullRequest("check", "t", 1, 0, 100, null, 0)).get(10, TimeUnit.SECONDS)
                .messages()).extracting(m -> new String(m.bodyBytes(), StandardCharsets.UTF_8))
                .containsExactly("a", "b", "c", "d");
    }

    private static ProduceResponseData.PartitionProduceResponse produce(final KafkaWire.Client c,
                                                                       final MemoryRecords records)
            throws InterruptedException {
        final ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName("t").setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(1).setRecords(records))));
        final RequestHeader h = c.send(ApiKeys.PRODUCE, (short) 9, new ProduceRequestData().setAcks((short) -1)
                .setTimeoutMs(10_000).setTopicData(topics));
        return ((ProduceResponse) c.receive(h)).data().responses().iterator().next().partitionResponses().get(0);
    }
}
