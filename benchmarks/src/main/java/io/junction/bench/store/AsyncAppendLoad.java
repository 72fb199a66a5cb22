package io.junction.bench.store;

import io.junction.core.SendResult;
import io.junction.core.engine.FlushMode;
import io.junction.core.engine.MessageStore;
import io.junction.core.message.Message;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * ASYNC phase: producer threads send as fast as the store acknowledges, each with a bounded number of sends in flight
 * (a semaphore), for a fixed message count. The clock stops after the last acknowledgement and a {@code close()},
 * which forces the log, so the result counts the same durability the raw-disk probe does.
 */
final class AsyncAppendLoad {

    /**
     * @param messages   acknowledged sends in the measured part
     * @param bytes      log bytes the measured part appended
     * @param sendNanos  first send to last acknowledgement
     * @param closeNanos the final close (force, last indexing, checkpoint)
     * @param failures   failed sends (any failure fails the bar)
     * @param firstError description of the first failure, or null
     * @param cutShort   the time budget ended the phase before all messages were sent
     * @param resources  CPU and GC over the measured part
     */
    record Result(long messages, long bytes, long sendNanos, long closeNanos, long failures, String firstError,
                  boolean cutShort, String resources) {
        long totalNanos() {
            return sendNanos + closeNanos;
        }

        double messagesPerSecond() {
            return messages / (totalNanos() / 1e9);
        }

        double bytesPerSecond() {
            return bytes / (totalNanos() / 1e9);
        }
    }

    /** Outcome of one round of sends by all producers. */
    private static final class Round {
        final LongAdder acked = new LongAdder();
        final LongAdder failures = new LongAdder();
        final AtomicReference<Throwable> firstError = new AtomicReference<>();
        final AtomicBoolean cutShort = new AtomicBoolean();

        void fail(final Throwable t) {
            failures.increment();
            firstError.compareAndSet(null, t);
        }
    }

    private AsyncAppendLoad() {
    }

    static Result run(final AppendOptions options, final Path dir) throws InterruptedException {
        final MessageStore store = AppendBenchmark.openStore(options, dir, FlushMode.ASYNC);
        boolean closed = false;
        try {
            final byte[] body = AppendBenchmark.body(options.bodySize());
            if (options.warmupMessages() > 0) {
                final Round warmup = send(store, options, body, options.warmupMessages(), Long.MAX_VALUE);
                if (warmup.failures.sum() > 0) {
                    return new Result(0, 0, 1, 0, warmup.failures.sum(), describe(warmup.firstError.get()), false,
                            "");
                }
            }
            final long startOffset = store.stats().logWriteOffset();
            final ResourceMeter meter = ResourceMeter.start();
            final long start = System.nanoTime();
            final Round round = send(store, options, body, options.messages(),
                    options.asyncMaxSeconds() * 1_000_000_000L);
            final long acked = System.nanoTime();
            final long bytes = store.stats().logWriteOffset() - startOffset;
            final long closing = System.nanoTime();
            store.close();
            closed = true;
            final long end = System.nanoTime();
            return new Result(round.acked.sum(), bytes, acked - start, end - closing, round.failures.sum(),
                    describe(round.firstError.get()), round.cutShort.get(), meter.since());
        } finally {
            if (!closed) {
                store.close();
            }
        }
    }

    /** All producers send {@code total} messages between them and wait for every acknowledgement. */
    private static Round send(final MessageStore store, final AppendOptions options, final byte[] body,
                              final long total, final long budgetNanos) throws InterruptedException {
        final Round round = new Round();
        final CountDownLatch go = new CountDownLatch(1);
        final List<Thread> producers = new ArrayList<>();
        final int threads = options.threads();
        for (int t = 0; t < threads; t++) {
            final long count = total / threads + (t < total % threads ? 1 : 0);
            final int first = t;
            final Thread producer = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                produce(store, body, count, first, options.outstanding(), budgetNanos, round);
            }, "bench-producer-" + t);
            producer.start();
            producers.add(producer);
        }
        go.countDown();
        for (Thread producer : producers) {
            producer.join();
        }
        return round;
    }

    private static void produce(final MessageStore store, final byte[] body, final long count, final int firstQueue,
                                final int outstanding, final long budgetNanos, final Round round) {
        final Semaphore inFlight = new Semaphore(outstanding);
        final long start = System.nanoTime();
        for (long i = 0; i < count; i++) {
            if ((i & 255) == 0 && System.nanoTime() - start > budgetNanos) {
                round.cutShort.set(true);
                break;
            }
            inFlight.acquireUninterruptibly();
            final Message message = Message.builder(AppendBenchmark.TOPIC)
                    .queueId((int) ((firstQueue + i) % AppendBenchmark.QUEUES))
                    .body(body)
                    .build();
            final CompletableFuture<SendResult> sent;
            try {
                sent = store.send(message);
            } catch (RuntimeException e) {
                round.fail(e);
                inFlight.release();
                continue;
            }
            sent.whenComplete((result, failure) -> {
                if (failure == null) {
                    round.acked.increment();
                } else {
                    round.fail(failure);
                }
                inFlight.release();
            });
        }
        inFlight.acquireUninterruptibly(outstanding);
    }

    static String describe(final Throwable t) {
        if (t == null) {
            return null;
        }
        final Throwable cause = t.getCause() != null && t instanceof CompletionException
                ? t.getCause() : t;
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
}
