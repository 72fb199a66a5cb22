package io.junction.bench.timer;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.SendResult;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Timer lateness with the real clock: {@code N} (default 100,000) delayed messages due within a few seconds of now
 * (uniform over [now + 2 s, now + 5 s)), read back by one long-polling puller per queue. Reports, against each
 * message's deliver time, the distribution of
 * <ul>
 *   <li><b>store lateness</b>: the delivered copy's store timestamp minus its deliver time (the timer's own delay);
 *   </li>
 *   <li><b>consumer lateness</b>: when a puller got it minus its deliver time (adds dispatch and long-poll wake-up).
 *   </li>
 * </ul>
 * Bar: p99 and max &le; 100 ms. ASYNC flush, default settings but 128 MiB segments, in a fresh temporary directory.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.junction.bench.timer.TimerLatenessCheck [N]
 * </pre>
 */
public final class TimerLatenessCheck {
    private static final String TOPIC = "timer-bench";
    private static final int QUEUES = 8;

    private TimerLatenessCheck() {
    }

    public static void main(final String[] args) throws Exception {
        final int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        final Path dir = Files.createTempDirectory("junction-timer-bench");
        final long[] storeLate = new long[n];
        final long[] consumerLate = new long[n];
        final AtomicInteger received = new AtomicInteger();
        try (MessageStore store = MessageStore.open(StoreConfig.builder(dir).segmentSize(128 << 20).build())) {
            store.topics().createOrUpdate(TopicConfig.of(TOPIC, QUEUES)).join();
            final long base = System.currentTimeMillis() + 2000;
            final SplittableRandom random = new SplittableRandom(42);
            final byte[] body = new byte[256];
            final List<CompletableFuture<SendResult>> sends = new ArrayList<>(n);
            final long sendStart = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sends.add(store.send(Message.builder(TOPIC).body(body)
                        .property(MessageProperties.DELIVER_AT, Long.toString(base + random.nextInt(3000)))
                        .build()));
            }
            sends.forEach(CompletableFuture::join);
            final long sendMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sendStart);
            final long lastDue = base + 3000;
            if (System.currentTimeMillis() > base) {
                System.out.printf("warning: sending took %d ms, past the first deliver time%n", sendMillis);
            }
            final List<Thread> pullers = new ArrayList<>();
            for (int q = 0; q < QUEUES; q++) {
                final int queue = q;
                final Thread t = new Thread(() -> pull(store, queue, n, lastDue, storeLate, consumerLate, received),
                        "puller-" + q);
                t.start();
                pullers.add(t);
            }
            for (Thread t : pullers) {
                t.join();
            }
            System.out.printf(Locale.ROOT, "timers: %d sent in %d ms, %d delivered%n", n, sendMillis,
                    received.get());
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> {
                    try {
                        Files.delete(p);
                    } catch (IOException ignored) {
                        // best effort
                    }
                });
            }
        }
        final int got = received.get();
        report("store lateness (store time - deliver-at)", Arrays.copyOf(storeLate, got));
        report("consumer lateness (pulled - deliver-at)", Arrays.copyOf(consumerLate, got));
    }

    private static void pull(final MessageStore store, final int queue, final int n, final long lastDue,
                             final long[] storeLate, final long[] consumerLate, final AtomicInteger received) {
        long offset = 0;
        final long giveUp = lastDue + 30_000;
        while (received.get() < n && System.currentTimeMillis() < giveUp) {
            final PullResult r = store.pull(new PullRequest("bench", TOPIC, queue, offset, 64, null, 200)).join();
            final long now = System.currentTimeMillis();
            for (StoredMessage m : r.messages()) {
                final long at = Long.parseLong(m.property(MessageProperties.DELIVER_AT));
                final int i = received.getAndIncrement();
                if (i < n) {
                    storeLate[i] = m.storeTimestamp() - at;
                    consumerLate[i] = now - at;
                }
            }
            offset = r.nextOffset();
        }
    }

    private static void report(final String what, final long[] values) {
        if (values.length == 0) {
            System.out.println(what + ": nothing delivered");
            return;
        }
        Arrays.sort(values);
        System.out.printf(Locale.ROOT, "%s over %d: min %d ms, p50 %d ms, p99 %d ms, p99.9 %d ms, max %d ms -> %s%n",
                what, values.length, values[0], pct(values, 0.50), pct(values, 0.99), pct(values, 0.999),
                values[values.length - 1],
                pct(values, 0.99) <= 100 && values[values.length - 1] <= 100 ? "PASS (<= 100 ms)" : "FAIL");
    }

    private static long pct(final long[] sorted, final double p) {
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
    }
}
