package io.junction.bench.grpc;

import io.junction.bench.measure.ProcessCpu;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;

/**
 * The same rocketmq-client-java 5.x load against any gRPC endpoint (Junction's front-end or RocketMQ's proxy): a send
 * phase ({@code threads} senders sharing one Producer, each a blocking {@code send} in a loop, for a fixed time) and
 * a drain phase ({@code drainThreads} sharing one SimpleConsumer, receive a batch then ack each, until every sent
 * message came or the drain time runs out). Bounded in count and time; talks to the given endpoint only. Given the
 * server's processes, it charges their CPU time over the measured send phase to its messages.
 */
public final class GrpcLoad {
    /**
     * What one run measured: {@code drained} counts receptions (redeliveries too) until {@code expected} (every message
     * acknowledged, the warm-up's included) or the drain limit. Latencies and CPU times in nanoseconds.
     */
    public record Result(long sent, long sendErrors, double sendSeconds, long p50, long p99, long p999, long drained,
                         long expected, double drainSeconds, SendCpu sendCpu) {
        public double sendRate() {
            return sent / sendSeconds;
        }

        public double drainRate() {
            return drainSeconds <= 0 ? 0 : drained / drainSeconds;
        }
    }

    /** Load settings: body size, sender threads, send time, warm-up time, drain threads and longest drain. */
    public record Settings(int bodyBytes, int threads, Duration sendTime, Duration warmUp, int drainThreads,
                           Duration drainLimit) {
        public static Settings defaults() {
            return new Settings(1024, 32, Duration.ofSeconds(30), Duration.ofSeconds(5), 8, Duration.ofSeconds(120));
        }
    }

    /**
     * The CPU time spent during the measured send phase: by the server's processes ({@code servers}), by those of
     * them named proxies ({@code proxies}, part of {@code servers}) and by this client; nanoseconds.
     */
    public record SendCpu(long servers, long proxies, long client) {
    }

    private static final ClientServiceProvider PROVIDER = ClientServiceProvider.loadService();

    private GrpcLoad() {
    }

    /** Sends to {@code topic} at {@code endpoints} (plaintext), then drains it with {@code group}. */
    public static Result run(final String endpoints, final String topic, final String group, final Settings s)
            throws Exception {
        return run(endpoints, topic, group, s, new ProcessCpu(new long[0]), new ProcessCpu(new long[0]));
    }

    /**
     * As {@link #run(String, String, String, Settings)}, reading the CPU time of the server's processes
     * ({@code servers}, of them {@code proxies}) and this client's at the two ends of the measured send phase.
     */
    public static Result run(final String endpoints, final String topic, final String group, final Settings s,
                             final ProcessCpu servers, final ProcessCpu proxies) throws Exception {
        final ClientConfiguration config = ClientConfiguration.newBuilder().setEndpoints(endpoints).enableSsl(false)
                .setRequestTimeout(Duration.ofSeconds(10)).build();
        final byte[] body = new byte[s.bodyBytes()];
        Arrays.fill(body, (byte) 'x');
        final Result sendPart;
        try (Producer producer = PROVIDER.newProducerBuilder().setClientConfiguration(config).setTopics(topic)
                .build();
             SimpleConsumer consumer = PROVIDER.newSimpleConsumerBuilder().setClientConfiguration(config)
                     .setConsumerGroup(group).setAwaitDuration(Duration.ofSeconds(2))
                     .setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL)).build()) {
            // The consumer group exists (and its position is set) before the first message
            consumer.receive(1, Duration.ofSeconds(30)).forEach(v -> ack(consumer, v));
            final Message message = PROVIDER.newMessageBuilder().setTopic(topic).setBody(body).build();
            final long warm = send(producer, message, s.threads(), s.warmUp(), null);
            final List<long[]> samples = new ArrayList<>();
            final AtomicLong errors = new AtomicLong();
            final long serversBefore = servers.nanos();
            final long proxiesBefore = proxies.nanos();
            final long clientBefore = ProcessCpu.self();
            final long start = System.nanoTime();
            final long sent = send(producer, message, s.threads(), s.sendTime(), new Sink(samples, errors));
            final double seconds = (System.nanoTime() - start) / 1e9;
            final SendCpu cpu = new SendCpu(servers.nanos() - serversBefore, proxies.nanos() - proxiesBefore,
                    ProcessCpu.self() - clientBefore);
            final long[] all = merge(samples);
            sendPart = new Result(sent, errors.get(), seconds, at(all, 0.50), at(all, 0.99), at(all, 0.999), 0,
                    warm + sent, 0, cpu);
            return drain(consumer, sendPart, warm + sent, s);
        }
    }

    /** Where a measured send phase puts each thread's latency samples and the failures. */
    private record Sink(List<long[]> samples, AtomicLong errors) {
    }

    /** {@code threads} senders for {@code time}; returns the messages acknowledged. */
    private static long send(final Producer producer, final Message message, final int threads, final Duration time,
                             final Sink sink) throws InterruptedException {
        final long end = System.nanoTime() + time.toNanos();
        final AtomicLong ok = new AtomicLong();
        final CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            final Thread thread = new Thread(() -> {
                long[] mine = new long[sink == null ? 0 : 64 * 1024];
                int n = 0;
                long acknowledged = 0;
                try {
                    while (System.nanoTime() < end) {
                        final long t0 = System.nanoTime();
                        try {
                            producer.send(message);
                        } catch (Exception e) {
                            if (sink != null) {
                                sink.errors().incrementAndGet();
                            }
                            continue;
                        }
                        acknowledged++;
                        if (sink != null) {
                            if (n == mine.length) {
                                mine = Arrays.copyOf(mine, n * 2);
                            }
                            mine[n++] = System.nanoTime() - t0;
                        }
                    }
                } finally {
                    ok.addAndGet(acknowledged);
                    if (sink != null) {
                        synchronized (sink.samples()) {
                            sink.samples().add(Arrays.copyOf(mine, n));
                        }
                    }
                    done.countDown();
                }
            }, "grpc-load-sender-" + t);
            thread.setDaemon(true);
            thread.start();
        }
        if (!done.await(time.toMillis() + 60_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("senders did not stop within a minute after the send time");
        }
        return ok.get();
    }

    /**
     * Receives and acks (each batch's acks awaited) until all {@code target} messages (warm-up included) are back, or
     * the limit passes; the rate is everything received over the time to the last batch.
     */
    private static Result drain(final SimpleConsumer consumer, final Result sent, final long target,
                                final Settings s) throws InterruptedException {
        final AtomicLong drained = new AtomicLong();
        final long limit = System.nanoTime() + s.drainLimit().toNanos();
        final AtomicLong lastAt = new AtomicLong(System.nanoTime());
        final long start = System.nanoTime();
        final CountDownLatch done = new CountDownLatch(s.drainThreads());
        for (int t = 0; t < s.drainThreads(); t++) {
            final Thread thread = new Thread(() -> {
                try {
                    while (drained.get() < target && System.nanoTime() < limit) {
                        final List<MessageView> batch;
                        try {
                            batch = consumer.receive(32, Duration.ofSeconds(30));
                        } catch (Exception e) {
                            continue;
                        }
                        final List<CompletableFuture<Void>> acks = new ArrayList<>(batch.size());
                        for (MessageView v : batch) {
                            acks.add(consumer.ackAsync(v));
                        }
                        for (CompletableFuture<Void> a : acks) {
                            try {
                                a.join();
                            } catch (RuntimeException e) {
                                // comes back after its invisible time; the drain counts receptions
                            }
                        }
                        if (!batch.isEmpty()) {
                            drained.addAndGet(batch.size());
                            lastAt.set(System.nanoTime());
                        }
                    }
                } finally {
                    done.countDown();
                }
            }, "grpc-load-drainer-" + t);
            thread.setDaemon(true);
            thread.start();
        }
        if (!done.await(s.drainLimit().toMillis() + 60_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("drainers did not stop within a minute after the drain limit");
        }
        return new Result(sent.sent(), sent.sendErrors(), sent.sendSeconds(), sent.p50(), sent.p99(), sent.p999(),
                drained.get(), target, (lastAt.get() - start) / 1e9, sent.sendCpu());
    }

    private static void ack(final SimpleConsumer consumer, final MessageView v) {
        try {
            consumer.ack(v);
        } catch (Exception e) {
            // comes back after its invisible time; the drain counts receptions
        }
    }

    private static long[] merge(final List<long[]> parts) {
        int total = 0;
        for (long[] p : parts) {
            total += p.length;
        }
        final long[] all = new long[total];
        int at = 0;
        for (long[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        Arrays.sort(all);
        return all;
    }

    private static long at(final long[] sorted, final double quantile) {
        if (sorted.length == 0) {
            return 0;
        }
        final int index = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
