package io.junction.bench.store;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.engine.FlushMode;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.Message;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Pulls of consecutive stored records of one queue through {@link MessageStore#pull}, the path every front-end's
 * consumers take (queue entries, the records from the log, their check, the decoded messages, the hand-over to and
 * from the store's reader pool). One op is one pull of {@code batch} 1 KiB messages; the reader walks the queue and
 * starts again at its head.
 *
 * <ul>
 *   <li>{@code batch}: 32 (a RocketMQ pull, an MQTT or AMQP delivery batch) or 1000 (a full Kafka fetch of one
 *   partition);</li>
 *   <li>{@code restarted}: the records were written by an earlier run of the store (each read verifies the CRC) or
 *   by this one (structure checked, CRC trusted);</li>
 *   <li>{@code queues}: 1 (a queue's records lie next to each other in the log) or 4 (sent round-robin, so no two
 *   records of one queue are adjacent).</li>
 * </ul>
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar PullRunBenchmark -prof gc
 * java -jar benchmarks/target/benchmarks.jar PullRunBenchmark -p batch=1000 -p queues=1 -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class PullRunBenchmark {
    private static final String TOPIC = "pull-bench";
    private static final String GROUP = "pull-bench-group";
    /** Messages per queue: ~23 MB of log per queue, larger than one mapped region (8 MiB by default). */
    private static final int MESSAGES_PER_QUEUE = 20_000;

    @Param({"32", "1000"})
    public int batch;

    @Param({"false", "true"})
    public boolean restarted;

    @Param({"1", "4"})
    public int queues;

    private Path dir;
    private MessageStore store;
    private long offset;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("pull-run-bench");
        store = open();
        store.topics().createOrUpdate(TopicConfig.of(TOPIC, queues)).join();
        final byte[] body = AppendBenchmark.body(1024);
        final List<CompletableFuture<?>> sent = new ArrayList<>();
        for (int i = 0; i < MESSAGES_PER_QUEUE; i++) {
            for (int q = 0; q < queues; q++) {
                sent.add(store.send(Message.builder(TOPIC).queueId(q).body(body).tag("TagA")
                        .keys("order-" + i).property("region", "eu-west-1").build()));
            }
            if (sent.size() >= 4096) {
                CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
                sent.clear();
            }
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
        awaitDispatched();
        if (restarted) {
            store.close();
            store = open();
            awaitDispatched();
        }
    }

    private MessageStore open() {
        return MessageStore.open(StoreConfig.builder(dir).flushMode(FlushMode.ASYNC).segmentSize(64 << 20)
                .diskFullRatio(1.01).maxDiskUsedRatio(1.01).build());
    }

    /** Waits until the dispatcher has indexed every message of queue 0 (sends complete before it indexes them). */
    private void awaitDispatched() {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (store.pull(new PullRequest(GROUP, TOPIC, 0, MESSAGES_PER_QUEUE - 1, 1, MessageFilter.ALL, 0))
                .join().status() != PullStatus.FOUND) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the store did not index the benchmark's messages in 60 s");
            }
            Thread.onSpinWait();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        store.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Benchmark
    public PullResult pull() {
        final PullResult result = store.pull(new PullRequest(GROUP, TOPIC, 0, offset, batch, MessageFilter.ALL, 0))
                .join();
        if (result.messages().size() != batch) {
            throw new IllegalStateException("pulled " + result.messages().size() + " of " + batch + " at " + offset
                    + ": " + result.status());
        }
        offset = result.nextOffset() + batch > MESSAGES_PER_QUEUE ? 0 : result.nextOffset();
        return result;
    }
}
