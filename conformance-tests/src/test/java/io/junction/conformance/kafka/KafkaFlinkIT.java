package io.junction.conformance.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Flink job on a local mini cluster reads a topic with flink-connector-kafka's KafkaSource (bounded at the offsets
 * it starts with), transforms each record and writes the results with KafkaSink, at least once and exactly once
 * (transactions committed at checkpoints), also when the exactly-once job fails midway and restarts from its last
 * checkpoint. The job runs in a child JVM (module {@code conformance-flink}): the
 * connector (5.0.0-2.2) is built against kafka-clients 4.2 and its transactional producer fails with the 4.4 client
 * on this classpath ({@code NoSuchMethodError: TransactionalRequestResult.await()}, after which the job restarted
 * forever: why the exactly-once job never finished before).
 */
@WithBroker
class KafkaFlinkIT {
    private static final int RECORDS = 100;
    private static final long DRIVER_DEADLINE_SECONDS = 180;

    private static RunningBroker broker;

    @BeforeAll
    static void start(final RunningBroker running) throws Exception {
        broker = running;
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaBootstrap());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic("flink-in", 2, (short) 1), new NewTopic("flink-out", 2, (short) 1),
                    new NewTopic("flink-eo-in", 2, (short) 1), new NewTopic("flink-eo-out", 2, (short) 1),
                    new NewTopic("flink-restart-in", 2, (short) 1), new NewTopic("flink-restart-out", 2, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldRunAFlinkJobReadingAndWritingTheBroker() throws Exception {
        final List<String> input = produce("flink-in");
        runJob("flink-in", "flink-out", "flink-job", "AT_LEAST_ONCE");
        assertThat(readAll("flink-out", "read_uncommitted", input.size()))
                .containsExactlyInAnyOrderElementsOf(upperCased(input));
    }

    @Test
    void shouldRunAnExactlyOnceFlinkJob() throws Exception {
        final List<String> input = produce("flink-eo-in");
        runJob("flink-eo-in", "flink-eo-out", "flink-eo-job", "EXACTLY_ONCE");
        assertThat(readAll("flink-eo-out", "read_committed", input.size()))
                .containsExactlyInAnyOrderElementsOf(upperCased(input));
    }

    @Test
    void shouldGiveExactlyTheRecordsWhenAnExactlyOnceJobRestartsFromACheckpoint() throws Exception {
        final List<String> input = produce("flink-restart-in");
        runJob("flink-restart-in", "flink-restart-out", "flink-restart-job", "EXACTLY_ONCE",
                Integer.toString(RECORDS * 2 / 3));
        assertThat(readAll("flink-restart-out", "read_committed", input.size()))
                .containsExactlyInAnyOrderElementsOf(upperCased(input));
    }

    private static List<String> produce(final String topic) {
        final List<String> input = new ArrayList<>();
        try (KafkaProducer<String, String> producer = KafkaClients.stringProducer(broker, Map.of())) {
            for (int i = 0; i < RECORDS; i++) {
                input.add("event-" + i);
                producer.send(new ProducerRecord<>(topic, "k" + i, "event-" + i));
            }
            producer.flush();
        }
        return input;
    }

    private static List<String> upperCased(final List<String> input) {
        return input.stream().map(v -> v.toUpperCase(Locale.ROOT)).toList();
    }

    /** Runs the job in the driver JVM until it ends; fails with the driver's output unless it finished. */
    private static void runJob(final String in, final String out, final String group, final String guarantee,
                               final String... failAfter) throws Exception {
        final Path driverDir = Path.of(System.getProperty("flink.driver.dir", "../conformance-flink/target"));
        final Path jar = driverDir.resolve("flink-driver.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no driver at " + jar.toAbsolutePath()
                    + ": run the build through the reactor so module conformance-flink is packaged first");
        }
        final Path work = Files.createTempDirectory("flink-driver");
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final List<String> command = new ArrayList<>(List.of(java, "-Xmx512m",
                "-cp", jar + File.pathSeparator + driverDir.resolve("lib") + File.separator + "*",
                "io.junction.conformance.flink.FlinkJobDriver", broker.kafkaBootstrap(), in, out, group, guarantee,
                group + "-txn"));
        command.addAll(List.of(failAfter));
        final Path stdout = work.resolve("stdout.txt");
        final Path stderr = work.resolve("stderr.txt");
        final Process child = new ProcessBuilder(command).redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile()).start();
        if (!child.waitFor(DRIVER_DEADLINE_SECONDS, TimeUnit.SECONDS)) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        final String output = Files.readString(stdout, StandardCharsets.UTF_8) + "\n--- stderr ---\n"
                + Files.readString(stderr, StandardCharsets.UTF_8);
        assertThat(child.isAlive() ? -1 : child.exitValue()).as(output).isZero();
        assertThat(output).contains("done");
        if (failAfter.length > 0) {
            assertThat(output).as("the job failed once and went on").contains("failing once after " + failAfter[0]);
        }
    }

    /** What {@code topic}'s two partitions hold, read with the isolation level given, once {@code expected} came. */
    private static List<String> readAll(final String topic, final String isolation, final int expected) {
        final List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = KafkaClients.stringConsumer(broker,
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation))) {
            final List<TopicPartition> tps = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (out.size() < expected && System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(300)).forEach(r -> out.add(r.value()));
            }
            // Anything beyond the expected records (a duplicate) arrives with the next poll: take it too.
            consumer.poll(Duration.ofMillis(500)).forEach(r -> out.add(r.value()));
        }
        return out;
    }
}
