package io.junction.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * kafka-clients 4.x producers and consumers against the broker: what a producer sends (idempotent, acks=all by default;
 * every compression codec; acks 0 and 1) comes back from a Fetch with its partition, offset, key, value, headers and
 * timestamp; a waiting Fetch is woken by an arrival and honours min.bytes; ListOffsets answers earliest, latest and by
 * timestamp.
 */
@WithBroker(settings = {"kafka.topic-partitions=3"})
class KafkaProduceFetchIT {
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @Test
    void shouldFetchWhatAnIdempotentProducerSentWithKeysHeadersAndTimestamps() throws Exception {
        final String topic = "orders";
        final long base = System.currentTimeMillis() - 60_000;
        final List<RecordMetadata> sent = new ArrayList<>();
        final List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = KafkaClients.bytesProducer(broker, Map.of())) {
            for (int i = 0; i < 60; i++) {
                final List<Header> headers = new ArrayList<>();
                headers.add(new RecordHeader("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8)));
                if (i % 5 == 0) {
                    headers.add(new RecordHeader("bin", new byte[] {0, 1, 2, (byte) 0xFF}));
                }
                final byte[] key = i % 10 == 9 ? null : ("k" + i % 6).getBytes(StandardCharsets.UTF_8);
                final byte[] value = i == 7 ? null : ("v" + i).getBytes(StandardCharsets.UTF_8);
                final ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, base + i, key, value,
                        headers);
                records.add(r);
                sent.add(producer.send(r).get(30, TimeUnit.SECONDS));
            }
        }
        assertThat(sent).extracting(RecordMetadata::partition).containsAnyOf(0, 1, 2);
        final List<ConsumerRecord<byte[], byte[]>> got = readAll(topic, 3, 60);
        assertThat(got).hasSize(60);
        final Map<String, ConsumerRecord<byte[], byte[]>> byPosition = new HashMap<>();
        got.forEach(r -> byPosition.put(r.partition() + "@" + r.offset(), r));
        for (int i = 0; i < 60; i++) {
            final RecordMetadata m = sent.get(i);
            final ConsumerRecord<byte[], byte[]> r = byPosition.get(m.partition() + "@" + m.offset());
            assertThat(r).as("record %d at %d@%d", i, m.partition(), m.offset()).isNotNull();
            assertThat(r.key()).isEqualTo(records.get(i).key());
            assertThat(r.value()).isEqualTo(records.get(i).value());
            assertThat(r.timestamp()).isEqualTo(base + i);
            assertThat(headerList(r.headers())).isEqualTo(headerList(records.get(i).headers()));
        }
        // Offsets of each partition are the queue's: 0, 1, 2, ... with nothing missing.
        for (int p = 0; p < 3; p++) {
            final int partition = p;
            final List<Long> offsets = got.stream().filter(r -> r.partition() == partition)
                    .map(ConsumerRecord::offset).toList();
            for (int i = 0; i < offsets.size(); i++) {
                assertThat(offsets.get(i)).isEqualTo(i);
            }
        }
    }

    @Test
    void shouldDecodeEveryCompressionCodec() throws Exception {
        for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
            final String topic = "codec-" + codec;
            try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of(
                    ProducerConfig.COMPRESSION_TYPE_CONFIG, codec, ProducerConfig.LINGER_MS_CONFIG, 50))) {
                final List<Future<RecordMetadata>> acks = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    acks.add(producer.send(new ProducerRecord<>(topic, 0, "key", codec + "-" + i + "-"
                            + "x".repeat(200))));
                }
                for (Future<RecordMetadata> f : acks) {
                    f.get(30, TimeUnit.SECONDS);
                }
            }
            final List<ConsumerRecord<byte[], byte[]>> got = readAll(topic, 3, 40);
            assertThat(got).as(codec).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                    .containsExactly(IntStream.range(0, 40)
                            .mapToObj(i -> codec + "-" + i + "-" + "x".repeat(200)).toArray(String[]::new));
        }
    }

    @Test
    void shouldStoreWhatProducersSendWithAcks0And1() throws Exception {
        final String topic = "acks";
        for (String acks : List.of("0", "1")) {
            try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker,
                    Map.of(ProducerConfig.ACKS_CONFIG, acks, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false))) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(topic, 1, null, "acks" + acks + "-" + i));
                }
                producer.flush();
            }
        }
        final List<ConsumerRecord<byte[], byte[]>> got = readAll(topic, 3, 20);
        assertThat(got).extracting(r -> new String(r.value(), StandardCharsets.UTF_8)).containsExactly(
                Stream.concat(
                        IntStream.range(0, 10).mapToObj(i -> "acks0-" + i),
                        IntStream.range(0, 10).mapToObj(i -> "acks1-" + i)).toArray(String[]::new));
    }

    @Test
    void shouldWakeAWaitingFetchWhenARecordArrives() throws Exception {
        final String topic = "longpoll";
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of());
             KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, Map.of(
                     ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 30_000,
                     ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 60_000))) {
            producer.send(new ProducerRecord<>(topic, 0, null, "first")).get(30, TimeUnit.SECONDS);
            consumer.assign(List.of(tp));
            consumer.seekToEnd(List.of(tp));
            assertThat(consumer.position(tp)).isEqualTo(1);
            final ExecutorService poller = Executors.newSingleThreadExecutor();
            try {
                final Future<List<String>> polled = poller.submit(() -> {
                    final List<String> values = new ArrayList<>();
                    final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (values.isEmpty() && System.nanoTime() < end) {
                        consumer.poll(Duration.ofSeconds(1)).forEach(r -> values.add(r.value()));
                    }
                    return values;
                });
                // Let the consumer's fetch park on the broker (nothing arrives meanwhile, so it waits).
                await().pollDelay(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> true);
                final long sentAt = System.nanoTime();
                producer.send(new ProducerRecord<>(topic, 0, null, "second")).get(30, TimeUnit.SECONDS);
                final List<String> values = polled.get(60, TimeUnit.SECONDS);
                final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
                assertThat(values).containsExactly("second");
                // Woken by the arrival, not by fetch.max.wait.ms (30 s) running out.
                assertThat(elapsedMs).isLessThan(20_000);
                // The consumer's next fetch is parked on the broker for fetch.max.wait.ms: a close with the default
                // time-out would wait for it.
                consumer.close(CloseOptions.timeout(Duration.ZERO));
            } finally {
                poller.shutdownNow();
            }
        }
    }

    @Test
    void shouldWaitForMinBytesUntilMaxWait() throws Exception {
        final String topic = "minbytes";
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of());
             KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, Map.of(
                     ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1_000_000,
                     ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 1500))) {
            producer.send(new ProducerRecord<>(topic, 0, null, "small")).get(30, TimeUnit.SECONDS);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            consumer.position(tp);
            final long start = System.nanoTime();
            final List<String> values = new ArrayList<>();
            final long end = start + TimeUnit.SECONDS.toNanos(30);
            while (values.isEmpty() && System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(500)).forEach(r -> values.add(r.value()));
            }
            assertThat(values).containsExactly("small");
            // Far fewer than min.bytes were there: the broker answered only when max.wait.ms had passed.
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(1400);
        }
    }

    @Test
    void shouldListEarliestLatestAndByTimestamp() throws Exception {
        final String topic = "offsets";
        final TopicPartition tp = new TopicPartition(topic, 2);
        final long between;
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of())) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, 2, null, "early" + i)).get(30, TimeUnit.SECONDS);
            }
            between = System.currentTimeMillis();
            await().atMost(Duration.ofSeconds(5)).until(() -> System.currentTimeMillis() > between + 2);
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, 2, null, "late" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, Map.of())) {
            assertThat(consumer.beginningOffsets(List.of(tp))).containsEntry(tp, 0L);
            assertThat(consumer.endOffsets(List.of(tp))).containsEntry(tp, 10L);
            final Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(Map.of(tp, between + 1));
            assertThat(found.get(tp).offset()).isEqualTo(5);
            assertThat(found.get(tp).timestamp()).isGreaterThan(between);
            final Map<TopicPartition, OffsetAndTimestamp> none = consumer.offsetsForTimes(
                    Map.of(tp, System.currentTimeMillis() + 3_600_000));
            assertThat(none.get(tp)).isNull();
            // Replay from a timestamp: seek there and read the later half.
            consumer.assign(List.of(tp));
            consumer.seek(tp, found.get(tp).offset());
            final List<String> values = new ArrayList<>();
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.size() < 5 && System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(500)).forEach(r -> values.add(r.value()));
            }
            assertThat(values).containsExactly("late0", "late1", "late2", "late3", "late4");
        }
    }

    /** Reads every partition of a topic from the start until {@code count} records are in (30 s at most). */
    static List<ConsumerRecord<byte[], byte[]>> readAll(final String topic, final int partitions, final int count) {
        final List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        final List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.bytesConsumer(broker, Map.of(
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 200))) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (got.size() < count && System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(500)).forEach(got::add);
            }
            // Nothing beyond what was sent.
            consumer.poll(Duration.ofMillis(500)).forEach(got::add);
        }
        return got;
    }

    private static List<String> headerList(final Iterable<Header> headers) {
        final List<String> list = new ArrayList<>();
        headers.forEach(h -> list.add(h.key() + "=" + Arrays.toString(h.value())));
        return list;
    }
}
