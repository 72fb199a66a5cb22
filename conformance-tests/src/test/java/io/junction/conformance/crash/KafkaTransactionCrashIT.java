package io.junction.conformance.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.BrokerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transactional kafka-clients producer commits transactions while the broker (SYNC flush, small segments) is
 * SIGKILLed at random moments; afterwards a read_committed consumer sees exactly the committed transactions' records,
 * each once, and none of the aborted ones.
 *
 * <p>Each round starts the broker (it recovers from the previous kill), then one producer with the same
 * transactional id throughout runs transactions of 1 to 12 records over both partitions of one topic, every fifth one
 * aborted on purpose, until the broker is killed after a random 0.5 to 2.5 s. Each transaction ends in the ledger as
 * committed (commitTransaction returned), aborted (abortTransaction was called, or it failed before its commit was
 * asked for: then the broker never decided to commit it) or uncertain (commitTransaction failed: the kill came while
 * it ran). After the last kill the broker starts once more and the topic is read: every committed transaction whole,
 * no aborted one, an uncertain one whole or not at all, no record twice and none nobody sent.
 *
 * <p>Rounds: {@code -Djunction.crash.kills} (default 6); the seed of every random choice is printed,
 * {@code -Djunction.crash.seed} replays it.
 */
@Tag("crash")
class KafkaTransactionCrashIT {
    private static final String TOPIC = "txcrash";
    private static final String TRANSACTIONAL_ID = "crash-tx";
    private static final Duration ROUND_END_DEADLINE = Duration.ofSeconds(60);
    private static final Duration DRAIN_DEADLINE = Duration.ofSeconds(90);

    /** How a transaction ended, as its producer saw it. */
    private enum Outcome {
        COMMITTED, ABORTED, UNCERTAIN
    }

    @TempDir
    Path dir;

    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        final Thread t = new Thread(r, "kafka-crash-load");
        t.setDaemon(true);
        return t;
    });
    /** Transaction number → its records' values (in send order) and how it ended. */
    private final Map<Integer, List<String>> sent = new ConcurrentHashMap<>();
    private final Map<Integer, Outcome> outcomes = new ConcurrentHashMap<>();
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private final List<Integer> committedPerRound = new ArrayList<>();
    private int nextTransaction;
    private CrashBroker broker;

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    // Every wait below has its own deadline; the JUnit time-out only has to leave room for a long manual run.
    @Test
    @Timeout(value = 2, unit = TimeUnit.HOURS)
    void shouldShowExactlyTheCommittedTransactionsAfterKills() throws Exception {
        final KillRounds rounds = KillRounds.fromSystemProperties("KafkaTransactionCrashIT", 6);
        final int kills = rounds.kills();
        broker = new CrashBroker(dir.resolve("data"));
        rounds.run(round -> killRound(round, rounds));

        final BrokerProcess process = broker.start();
        final List<String> read;
        try {
            read = readCommitted(process);
            assertThat(CrashBroker.loggedErrors(process)).as("ERROR lines of the last start").isEmpty();
        } finally {
            process.close();
        }

        final Map<String, Integer> counts = new HashMap<>();
        read.forEach(v -> counts.merge(v, 1, Integer::sum));
        final Map<Outcome, Integer> byOutcome = new HashMap<>();
        outcomes.values().forEach(o -> byOutcome.merge(o, 1, Integer::sum));
        int uncertainThere = 0;
        final List<String> wrong = new ArrayList<>();
        for (Map.Entry<Integer, Outcome> e : outcomes.entrySet()) {
            final List<String> values = sent.get(e.getKey());
            final long there = values.stream().filter(counts::containsKey).count();
            switch (e.getValue()) {
                case COMMITTED -> {
                    if (there != values.size()) {
                        wrong.add("committed transaction " + e.getKey() + ": " + there + " of " + values.size()
                                + " records readable");
                    }
                }
                case ABORTED -> {
                    if (there != 0) {
                        wrong.add("aborted transaction " + e.getKey() + ": " + there + " records readable");
                    }
                }
                case UNCERTAIN -> {
                    if (there != 0 && there != values.size()) {
                        wrong.add("transaction " + e.getKey() + " (commit interrupted): " + there + " of "
                                + values.size() + " records readable, so half applied");
                    }
                    uncertainThere += there == values.size() ? 1 : 0;
                }
            }
        }
        final List<String> twice = counts.entrySet().stream().filter(e -> e.getValue() > 1)
                .map(e -> e.getKey() + " x" + e.getValue()).toList();
        final List<String> foreign = counts.keySet().stream().filter(v -> !sentValue(v)).toList();
        System.out.println("KafkaTransactionCrashIT verdict: transactions " + outcomes.size() + " " + byOutcome
                + ", uncertain ones committed " + uncertainThere + "; records read " + read.size() + ", twice "
                + twice.size() + ", never sent " + foreign.size() + ", wrong transactions " + wrong.size());
        assertThat(problems).as("problems during the rounds").isEmpty();
        assertThat(byOutcome.getOrDefault(Outcome.COMMITTED, 0)).as("committed transactions").isPositive();
        if (kills >= 2) {
            // The producer goes on after a restart: transactions committed in rounds that began after a kill.
            assertThat(committedPerRound.subList(1, kills).stream().mapToInt(Integer::intValue).sum())
                    .as("transactions committed after the first kill").isPositive();
        }
        assertThat(wrong).as("transactions not seen all or nothing as they ended").isEmpty();
        assertThat(twice).as("records read more than once").isEmpty();
        assertThat(foreign).as("records nobody sent").isEmpty();
    }

    private boolean sentValue(final String value) {
        final int dash = value.indexOf('-');
        if (!value.startsWith("t") || dash < 0) {
            return false;
        }
        final List<String> values = sent.get(Integer.parseInt(value.substring(1, dash)));
        return values != null && values.contains(value);
    }

    /** One round: start (recover), transactions until the SIGKILL at a random moment, the producer closed. */
    private void killRound(final int round, final KillRounds rounds) throws Exception {
        final long killAfterMillis = rounds.nextKillDelayMillis();
        final BrokerProcess process = broker.start();
        final String bootstrap = "127.0.0.1:" + process.setting("kafka.port");
        if (round == 1) {
            final Properties p = new Properties();
            p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            try (Admin admin = Admin.create(p)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
        }
        final AtomicBoolean killed = new AtomicBoolean();
        final Random producerRandom = new Random(rounds.random().nextLong());
        final int[] done = new int[Outcome.values().length];
        final KafkaProducer<String, String> producer = producer(bootstrap);
        try {
            // A new producer of the same transactional id: its InitProducerId fences the previous round's epoch.
            producer.initTransactions();
            final Future<?> load = threads.submit(() -> transactions(producer, producerRandom, killed, done, round));
            // The random kill moment (a sleep, not a wait for anything).
            Thread.sleep(killAfterMillis);
            process.kill();
            killed.set(true);
            // Closing at once fails the call the load is blocked in (its outcome as the producer sees it), instead
            // of waiting for the client's time-outs.
            producer.close(Duration.ZERO);
            load.get(ROUND_END_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            killed.set(true);
            producer.close(Duration.ZERO);
            process.close();
        }
        System.out.println("round " + round + ": killed after " + killAfterMillis + " ms; transactions committed "
                + done[Outcome.COMMITTED.ordinal()] + ", aborted " + done[Outcome.ABORTED.ordinal()]
                + ", uncertain " + done[Outcome.UNCERTAIN.ordinal()]);
        committedPerRound.add(done[Outcome.COMMITTED.ordinal()]);
    }

    /** Runs transactions until one fails (the broker is gone); records each one's values and outcome. */
    private void transactions(final KafkaProducer<String, String> producer, final Random random,
                              final AtomicBoolean killed, final int[] done, final int round) {
        while (true) {
            final int n;
            synchronized (this) {
                n = nextTransaction++;
            }
            final List<String> values = new ArrayList<>();
            sent.put(n, values);
            outcomes.put(n, Outcome.ABORTED); // until its commit is asked for
            boolean committing = false;
            try {
                producer.beginTransaction();
                final int size = 1 + random.nextInt(12);
                for (int i = 0; i < size; i++) {
                    final String value = "t" + n + "-" + i;
                    values.add(value);
                    producer.send(new ProducerRecord<>(TOPIC, "k" + random.nextInt(100), value));
                }
                if (n % 5 == 4) {
                    producer.abortTransaction();
                    done[Outcome.ABORTED.ordinal()]++;
                } else {
                    committing = true;
                    outcomes.put(n, Outcome.UNCERTAIN);
                    producer.commitTransaction();
                    outcomes.put(n, Outcome.COMMITTED);
                    done[Outcome.COMMITTED.ordinal()]++;
                }
            } catch (RuntimeException e) {
                done[(committing ? Outcome.UNCERTAIN : Outcome.ABORTED).ordinal()]++;
                if (!killed.get()) {
                    problems.add("round " + round + ": transaction " + n + " failed before the kill: " + e);
                }
                return;
            }
        }
    }

    private static KafkaProducer<String, String> producer(final String bootstrap) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TRANSACTIONAL_ID);
        // A killed broker makes every call fail within these, so a round ends soon after its kill.
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /** Everything both partitions hold, read_committed from the beginning up to their end offsets. */
    private static List<String> readCommitted(final BrokerProcess process) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + process.setting("kafka.port"));
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        final List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p, new StringDeserializer(),
                new StringDeserializer())) {
            final List<TopicPartition> tps = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            final Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
            final long deadline = System.nanoTime() + DRAIN_DEADLINE.toNanos();
            while (tps.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                assertThat(System.nanoTime()).as("drained by the deadline (ends %s)", ends).isLessThan(deadline);
                consumer.poll(Duration.ofMillis(500)).forEach(r -> read.add(r.value()));
            }
        }
        return read;
    }
}
