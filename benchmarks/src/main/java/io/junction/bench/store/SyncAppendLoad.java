package io.junction.bench.store;

import io.junction.bench.measure.LatencyRecorder;
import io.junction.core.engine.FlushMode;
import io.junction.core.engine.MessageStore;
import io.junction.core.message.Message;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * SYNC phase: many appenders, each with exactly one send in flight ({@code send().join()} in a loop), so throughput
 * comes only from group commit (one fsync covering every append that arrived while the previous one ran).
 *
 * <p>A send counts, and its latency is recorded, when it both started and completed inside the measured window.
 */
final class SyncAppendLoad {
    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;

    /**
     * @param messages   sends completed inside the window
     * @param bytes      log bytes written during the window (approximate at the edges)
     * @param nanos      the window
     * @param latency    send-to-acknowledgement latency of the counted sends
     * @param failures   failed sends, warm-up included (any failure fails the bar)
     * @param firstError description of the first failure, or null
     * @param resources  CPU and GC over the window
     */
    record Result(long messages, long bytes, long nanos, LatencyRecorder.Percentiles latency, long failures,
                  String firstError, String resources) {
        double messagesPerSecond() {
            return messages / (nanos / 1e9);
        }

        double bytesPerSecond() {
            return bytes / (nanos / 1e9);
        }
    }

    private SyncAppendLoad() {
    }

    static Result run(final AppendOptions options, final Path dir) throws InterruptedException {
        final MessageStore store = AppendBenchmark.openStore(options, dir, FlushMode.SYNC);
        try {
            final byte[] body = AppendBenchmark.body(options.bodySize());
            final AtomicInteger phase = new AtomicInteger(WARMUP);
            final LongAdder failures = new LongAdder();
            final AtomicReference<Throwable> firstError = new AtomicReference<>();
            final List<LatencyRecorder> recorders = new ArrayList<>();
            final List<Thread> appenders = new ArrayList<>();
            for (int t = 0; t < options.syncThreads(); t++) {
                final LatencyRecorder recorder = new LatencyRecorder();
                recorders.add(recorder);
                final int queue = t % AppendBenchmark.QUEUES;
                final Thread appender = new Thread(() -> {
                    while (phase.get() != STOP) {
                        final Message message = Message.builder(AppendBenchmark.TOPIC).queueId(queue).body(body)
                                .build();
                        final int startPhase = phase.get();
                        final long start = System.nanoTime();
                        try {
                            store.send(message).join();
                        } catch (CompletionException | CancellationException e) {
                            failures.increment();
                            firstError.compareAndSet(null, e);
                            continue;
                        }
                        final long latency = System.nanoTime() - start;
                        if (startPhase == MEASURE && phase.get() == MEASURE) {
                            recorder.record(latency);
                        }
                    }
                }, "bench-sync-" + t);
                appender.start();
                appenders.add(appender);
            }
            TimeUnit.SECONDS.sleep(options.syncWarmupSeconds());
            final long startOffset = store.stats().logWriteOffset();
            final ResourceMeter meter = ResourceMeter.start();
            final long start = System.nanoTime();
            phase.set(MEASURE);
            TimeUnit.SECONDS.sleep(options.syncSeconds());
            phase.set(STOP);
            final long end = System.nanoTime();
            final long bytes = store.stats().logWriteOffset() - startOffset;
            final String resources = meter.since();
            for (Thread appender : appenders) {
                appender.join();
            }
            final LatencyRecorder.Percentiles latency = LatencyRecorder.merge(recorders);
            return new Result(latency.count(), bytes, end - start, latency, failures.sum(),
                    AsyncAppendLoad.describe(firstError.get()), resources);
        } finally {
            store.close();
        }
    }
}
