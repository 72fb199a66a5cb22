package io.junction.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A consumer group of three kafka-clients consumers (classic protocol) reading what an idempotent acks=all producer
 * sends meanwhile: members join and leave, partitions move between them, offsets are committed; every record is
 * consumed at least once and duplicates come only from the partitions that moved. Committed offsets survive the group
 * and a seek replays.
 */
@WithBroker(settings = {"kafka.topic-partitions=" + KafkaConsumerGroupIT.PARTITIONS,
        "kafka.group-initial-rebalance-delay-ms=500"})
class KafkaConsumerGroupIT {
    static final int PARTITIONS = 6;
    private static final int RECORDS = 3000;
    private static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    /** One group member on its own thread: polls, records what it got, commits after each poll. */
    private static final class Member implements AutoCloseable {
        final String name;
        final List<String> received = new CopyOnWriteArrayList<>();
        final Set<TopicPartition> everAssigned = ConcurrentHashMap.newKeySet();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;

        Member(final String name, final String group, final String topic) {
            this.name = name;
            thread = new Thread(() -> run(group, topic), "member-" + name);
            thread.start();
        }

        private void run(final String group, final String topic) {
            try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, Map.of(
                    ConsumerConfig.GROUP_ID_CONFIG, group, ConsumerConfig.CLIENT_ID_CONFIG, name,
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50,
                    ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 200))) {
                consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(final Collection<TopicPartition> partitions) {
                    }

                    @Override
                    public void onPartitionsAssigned(final Collection<TopicPartition> partitions) {
                        everAssigned.addAll(partitions);
                    }
                });
                while (running.get()) {
                    final var records = consumer.poll(Duration.ofMillis(200));
                    for (ConsumerRecord<String, String> r : records) {
                        received.add(r.partition() + "@" + r.offset() + "=" + r.value());
                    }
                    if (!records.isEmpty()) {
                        try {
                            consumer.commitSync();
                        } catch (RebalanceInProgressException | CommitFailedException e) {
                            // The partitions moved: their new owner reads them again from the last commit.
                        }
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(60_000);
        }
    }

    @Test
    void shouldConsumeEveryRecordOnceOrMoreWhileMembersJoinAndLeave() throws Exception {
        final String topic = "group-orders";
        final String group = "billing";
        final Map<String, String> sent = new ConcurrentHashMap<>();
        final AtomicReference<Throwable> sendFailure = new AtomicReference<>();
        final Thread producerThread = new Thread(() -> {
            try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of())) {
                for (int i = 0; i < RECORDS; i++) {
                    final String value = "order-" + i;
                    final RecordMetadata m = producer.send(new ProducerRecord<>(topic, "customer-" + (i % 37), value))
                            .get(30, TimeUnit.SECONDS);
                    sent.put(m.partition() + "@" + m.offset(), value);
                    if (i % 100 == 0) {
                        producer.flush();
                    }
                }
            } catch (Throwable t) {
                sendFailure.set(t);
            }
        });
        producerThread.start();
        final Member a = new Member("a", group, topic);
        awaitTrue(() -> a.received.size() >= 200, "a consumed some");
        final Member b = new Member("b", group, topic);
        final Member c = new Member("c", group, topic);
        awaitTrue(() -> !b.received.isEmpty() && !c.received.isEmpty(), "b and c got partitions and records");
        b.close(); // leaves: its partitions go to a and c
        awaitTrue(() -> !producerThread.isAlive(), "the producer finished");
        assertThat(sendFailure.get()).isNull();
        assertThat(sent).hasSize(RECORDS);
        awaitTrue(() -> {
            final Set<String> seen = new HashSet<>();
            for (Member m : List.of(a, b, c)) {
                m.received.forEach(r -> seen.add(r.substring(0, r.indexOf('='))));
            }
            return seen.containsAll(sent.keySet());
        }, "every record consumed");
        a.close();
        c.close();
        for (Member m : List.of(a, b, c)) {
            assertThat(m.failure.get()).as("member %s", m.name).isNull();
            assertThat(m.everAssigned).as("member %s was assigned partitions", m.name).isNotEmpty();
        }
        // Each record consumed is one that was sent, with its value; nothing else.
        final Map<String, Integer> counts = new HashMap<>();
        for (Member m : List.of(a, b, c)) {
            for (String r : m.received) {
                final String position = r.substring(0, r.indexOf('='));
                assertThat(sent.get(position)).isEqualTo(r.substring(r.indexOf('=') + 1));
                counts.merge(position, 1, Integer::sum);
            }
        }
        assertThat(counts.keySet()).isEqualTo(sent.keySet());
        final long duplicates = counts.values().stream().filter(n -> n > 1).count();
        // At least once: repeats only after a move (at most a poll's worth per partition per rebalance).
        assertThat(duplicates).isLessThan(RECORDS / 4);
        // The group committed everything it consumed: a new member's position is the end of each partition.
        final List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, Map.of(
                ConsumerConfig.GROUP_ID_CONFIG, group))) {
            final Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(new HashSet<>(tps));
            final Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
            for (TopicPartition tp : tps) {
                assertThat(committed.get(tp)).as("committed %s", tp).isNotNull();
                assertThat(committed.get(tp).offset()).as("committed %s", tp).isEqualTo(ends.get(tp));
            }
        }
    }

    @Test
    void shouldResumeFromTheCommittedOffsetAndReplayAfterASeek() throws Exception {
        final String topic = "group-resume";
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of())) {
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, "r" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        final Map<String, Object> config = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "resume",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10);
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, config)) {
            consumer.subscribe(List.of(topic));
            final List<String> first = pollUntil(consumer, 10);
            assertThat(first).startsWith("r0");
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(10)));
        }
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker, config)) {
            consumer.subscribe(List.of(topic));
            final List<String> rest = pollUntil(consumer, 10);
            assertThat(rest).containsExactly("r10", "r11", "r12", "r13", "r14", "r15", "r16", "r17", "r18", "r19");
            consumer.seek(tp, 3);
            assertThat(pollUntil(consumer, 1).get(0)).isEqualTo("r3");
        }
    }

    private static List<String> pollUntil(final KafkaConsumer<String, String> consumer, final int count) {
        final List<String> values = new ArrayList<>();
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (values.size() < count && System.nanoTime() < end) {
            consumer.poll(Duration.ofMillis(300)).forEach(r -> values.add(r.value()));
        }
        assertThat(values.size()).isGreaterThanOrEqualTo(count);
        return values;
    }

    private static void awaitTrue(final Callable<Boolean> condition, final String what) {
        await(what).atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(50)).until(condition);
    }
}
