package io.junction.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kafka Streams 4.x applications with {@code processing.guarantee=exactly_once_v2}, unchanged, against the broker: a
 * word count (a repartition topic and a compacted changelog) where, with the record cache off, every input word yields
 * one count update, so the updates of each word must be exactly 1, 2, ..., n (a duplicate or a loss shows), also when
 * the application is closed midway and started again; a windowed count and a stream-table join.
 */
@WithBroker(settings = {"kafka.group-initial-rebalance-delay-ms=0"})
class KafkaStreamsIT {
    private static final List<String> WORDS = List.of("apple", "banana", "cherry", "date", "elder", "fig");
    private static RunningBroker broker;
    private static Admin admin;

    @BeforeAll
    static void start(final RunningBroker running) throws Exception {
        broker = running;
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaBootstrap());
        admin = Admin.create(p);
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
    }

    private static KafkaStreams wordCount(final String app, final String in, final String out, final Path state) {
        final StreamsBuilder builder = new StreamsBuilder();
        builder.stream(in, Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
                .filter((k, word) -> !word.isEmpty())
                .groupBy((k, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .count()
                .toStream()
                .to(out, Produced.with(Serdes.String(), Serdes.Long()));
        final KafkaStreams streams = new KafkaStreams(builder.build(), streamsConfig(app, state));
        streams.start();
        return streams;
    }

    /** Exactly once v2, no record cache (every update goes out), short commits. */
    private static Properties streamsConfig(final String app, final Path state) {
        final Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaBootstrap());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        return p;
    }

    private static List<String> lines(final int from, final int to) {
        // Line i holds words i % 6 and (i + 1) % 6 and, every third line, "apple" again.
        return IntStream.range(from, to).mapToObj(i -> WORDS.get(i % 6) + " " + WORDS.get((i + 1) % 6)
                + (i % 3 == 0 ? " Apple" : "")).toList();
    }

    private static Map<String, Long> expected(final List<String> lines) {
        final Map<String, Long> counts = new LinkedHashMap<>();
        for (String line : lines) {
            for (String w : line.toLowerCase(Locale.ROOT).split("\\W+")) {
                counts.merge(w, 1L, Long::sum);
            }
        }
        return counts;
    }

    private static void produce(final String topic, final List<String> lines) throws Exception {
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of())) {
            for (int i = 0; i < lines.size(); i++) {
                producer.send(new ProducerRecord<>(topic, "line-" + i, lines.get(i)));
            }
            producer.flush();
        }
    }

    /** Every count update of the output so far, per word in order; waits until {@code total} updates are in. */
    private static Map<String, List<Long>> updates(final String topic, final long total) {
        final Map<String, List<Long>> byWord = new LinkedHashMap<>();
        final Properties p = KafkaClients.consumerConfig(broker,
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"));
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new LongDeserializer())) {
            final List<TopicPartition> tps = consumer.partitionsFor(topic).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long seen = 0;
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (seen < total && System.nanoTime() < end) {
                for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(300))) {
                    byWord.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                    seen++;
                }
            }
            for (int i = 0; i < 5; i++) { // anything more (a duplicate) would arrive now
                consumer.poll(Duration.ofMillis(300)).forEach(r ->
                        byWord.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value()));
            }
        }
        return byWord;
    }

    private static void assertExactCounts(final Map<String, List<Long>> updates, final Map<String, Long> expected) {
        assertThat(updates.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
        expected.forEach((word, n) -> assertThat(updates.get(word)).as("updates of " + word)
                .containsExactlyElementsOf(IntStream.rangeClosed(1, n.intValue()).mapToObj(Long::valueOf).toList()));
    }

    private static void createTopics(final String in, final String out) throws Exception {
        admin.createTopics(List.of(new NewTopic(in, 2, (short) 1), new NewTopic(out, 2, (short) 1)))
                .all().get(30, TimeUnit.SECONDS);
    }

    @Test
    void shouldCountWordsExactlyOnce() throws Exception {
        createTopics("wc-in", "wc-out");
        final List<String> input = lines(0, 60);
        produce("wc-in", input);
        final Map<String, Long> expected = expected(input);
        final Path state = Files.createTempDirectory("streams-wc");
        try (KafkaStreams streams = wordCount("wc-app", "wc-in", "wc-out", state)) {
            assertExactCounts(updates("wc-out", total(expected)), expected);
        }
    }

    @Test
    void shouldCountWordsExactlyOnceAcrossARestart() throws Exception {
        createTopics("wcr-in", "wcr-out");
        final List<String> first = lines(0, 40);
        final List<String> second = lines(40, 90);
        final Path state = Files.createTempDirectory("streams-wcr");
        produce("wcr-in", first);
        final KafkaStreams before = wordCount("wcr-app", "wcr-in", "wcr-out", state);
        try {
            assertExactCounts(updates("wcr-out", total(expected(first))), expected(first));
        } finally {
            // It leaves the group as it closes: a Streams member stays in its group by default, and the next
            // instance's rebalance would then wait out the old member's 10 s session. The restart under test is the
            // new instance restoring the counts from the changelog, not the expiry of a vanished member.
            before.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
        }
        produce("wcr-in", second);
        final List<String> all = new ArrayList<>(first);
        all.addAll(second);
        // Started again on a fresh state directory too: the counts come back from the changelog.
        try (KafkaStreams streams = wordCount("wcr-app", "wcr-in", "wcr-out", freshDir())) {
            assertExactCounts(updates("wcr-out", total(expected(all))), expected(all));
        }
    }

    /**
     * A windowed count (one-minute windows by record timestamp) and a stream-table join (clicks enriched with the
     * user's region from a compacted table topic), exactly once: each window's updates are exactly 1..n and every
     * click is enriched once.
     */
    @Test
    void shouldCountWindowsAndJoinAStreamWithATableExactlyOnce() throws Exception {
        admin.createTopics(List.of(new NewTopic("clicks", 2, (short) 1), new NewTopic("users", 2, (short) 1)
                        .configs(Map.of("cleanup.policy", "compact")), new NewTopic("clicks-per-minute", 2, (short) 1),
                new NewTopic("enriched", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        final long t0 = 1_700_000_000_000L - 1_700_000_000_000L % 60_000;
        final List<String> users = List.of("ann", "ben", "cid");
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of())) {
            for (int i = 0; i < users.size(); i++) {
                producer.send(new ProducerRecord<>("users", null, t0 - 60_000, users.get(i), "region-" + i));
            }
            producer.flush();
        }
        // 45 clicks, one every 4 seconds: three one-minute windows of 15 clicks, five per user in each.
        final Map<String, Long> windows = new LinkedHashMap<>();
        final List<String> enriched = new ArrayList<>();
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of())) {
            for (int i = 0; i < 45; i++) {
                final String user = users.get(i % 3);
                final long ts = t0 + i * 4_000L;
                producer.send(new ProducerRecord<>("clicks", null, ts, user, "page-" + i));
                windows.merge(user + "@" + (ts - ts % 60_000), 1L, Long::sum);
                enriched.add("region-" + (i % 3) + ":page-" + i);
            }
            producer.flush();
        }
        final StreamsBuilder builder = new StreamsBuilder();
        final KStream<String, String> clicks = builder.stream("clicks", Consumed.with(Serdes.String(),
                Serdes.String()));
        final KTable<String, String> regions = builder.table("users", Consumed.with(Serdes.String(),
                Serdes.String()));
        clicks.groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMinutes(1), Duration.ofHours(1)))
                .count().toStream()
                .map((w, n) -> KeyValue.pair(w.key() + "@" + w.window().start(), n))
                .to("clicks-per-minute", Produced.with(Serdes.String(), Serdes.Long()));
        clicks.join(regions, (page, region) -> region + ":" + page)
                .to("enriched", Produced.with(Serdes.String(), Serdes.String()));
        final Properties p = streamsConfig("clicks-app", freshDir());
        p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, 2_000); // the table's partition is read before clicks join it
        try (KafkaStreams streams = new KafkaStreams(builder.build(), p)) {
            streams.start();
            assertExactCounts(updates("clicks-per-minute", 45), windows);
            assertThat(values("enriched", 45)).containsExactlyInAnyOrderElementsOf(enriched);
        }
    }

    /** Every value of a string topic, read committed; waits until {@code expected} are in, then a little more. */
    private static List<String> values(final String topic, final int expected) {
        final List<String> values = new ArrayList<>();
        final Properties p = KafkaClients.consumerConfig(broker,
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"));
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            final List<TopicPartition> tps = consumer.partitionsFor(topic).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (values.size() < expected && System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(300)).forEach(r -> values.add(r.value()));
            }
            for (int i = 0; i < 5; i++) {
                consumer.poll(Duration.ofMillis(300)).forEach(r -> values.add(r.value()));
            }
        }
        return values;
    }

    private static Path freshDir() throws IOException {
        return Files.createTempDirectory("streams-wcr-2");
    }

    private static long total(final Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }
}
