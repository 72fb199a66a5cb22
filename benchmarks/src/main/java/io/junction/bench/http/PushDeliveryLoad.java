package io.junction.bench.http;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Push delivery rate of the CloudEvents front-end: a local sink (Netty, answering 200 at once) receives the events of
 * one push subscription while this tool publishes to its topic.
 *
 * <p>It creates the subscription ({@code PUT /subscriptions/{name}} with the sink), publishes {@code --warmup} events
 * and waits until the sink has them all (both sides compiled), then publishes {@code --events} more in batches
 * ({@code application/cloudevents-batch+json}, several requests in flight, so publishing outruns delivery) and
 * measures from the start of publishing to the sink's last new event. It prints one line of {@code key=value}:
 * the delivery rate, how long publishing took, and how many events the sink got twice or never.
 */
@Command(name = "PushDeliveryLoad", mixinStandardHelpOptions = true,
        description = "CloudEvents push delivery rate to a local sink.")
public final class PushDeliveryLoad implements Callable<Integer> {
    @Option(names = "--broker", defaultValue = "http://127.0.0.1:8080", description = "Broker base URL.")
    String broker;
    @Option(names = "--events", defaultValue = "100000", description = "Measured events (${DEFAULT-VALUE}).")
    int events;
    @Option(names = "--warmup", defaultValue = "20000", description = "Warm-up events (${DEFAULT-VALUE}).")
    int warmup;
    @Option(names = "--batch", defaultValue = "100", description = "Events per publish request (${DEFAULT-VALUE}).")
    int batch;
    @Option(names = "--data", defaultValue = "1024", description = "Bytes of data per event (${DEFAULT-VALUE}).")
    int dataBytes;
    @Option(names = "--publishers", defaultValue = "4", description = "Publish requests in flight (${DEFAULT-VALUE}).")
    int publishers;
    @Option(names = "--timeout", defaultValue = "300", description = "Seconds to wait for delivery (${DEFAULT-VALUE}).")
    int timeoutSeconds;

    /** Deliveries per event number; events are numbered from 0 (warm-up first). */
    private AtomicIntegerArray seen;
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong distinct = new AtomicLong();
    private volatile long lastNewNanos;

    public static void main(final String[] args) {
        System.exit(new CommandLine(new PushDeliveryLoad()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        seen = new AtomicIntegerArray(warmup + events);
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        try {
            final Channel sink = LocalSink.start(group, request -> record(request.headers().get("ce-id")));
            final int port = ((InetSocketAddress) sink.localAddress()).getPort();
            final String name = "push-bench-" + Long.toHexString(System.nanoTime());
            final String topic = name;
            publish(http, topic, 0, 1, 1); // the topic exists before the subscription names it
            final HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(broker
                            + "/subscriptions/" + name))
                    .header("content-type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString("{\"topic\":\"" + topic + "\",\"sink\":"
                            + "\"http://127.0.0.1:" + port + "/sink\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (created.statusCode() / 100 != 2) {
                System.err.println("creating the subscription failed: " + created.statusCode() + " "
                        + created.body());
                return 1;
            }
            // Event 0 was published before the subscription existed; it may or may not be delivered.
            publishAll(http, topic, 1, warmup);
            if (!awaitAll(1, warmup)) {
                System.err.println("warm-up not delivered: " + distinct.get() + " of " + (warmup - 1));
                return 1;
            }
            final long start = System.nanoTime();
            publishAll(http, topic, warmup, events);
            final long published = System.nanoTime();
            final boolean complete = awaitAll(warmup, warmup + events);
            final long end = lastNewNanos;
            int twice = 0;
            int missing = 0;
            for (int i = warmup; i < warmup + events; i++) {
                final int n = seen.get(i);
                if (n == 0) {
                    missing++;
                } else if (n > 1) {
                    twice++;
                }
            }
            final double seconds = (end - start) / 1e9;
            System.out.printf("push_events=%d delivered_per_s=%.0f publish_s=%.2f deliver_s=%.2f duplicates=%d "
                            + "missing=%d complete=%s%n", events, events / seconds, (published - start) / 1e9,
                    seconds, twice, missing, complete);
            http.send(HttpRequest.newBuilder(URI.create(broker + "/subscriptions/" + name)).DELETE().build(),
                    HttpResponse.BodyHandlers.discarding());
            sink.close().sync();
            return complete && missing == 0 ? 0 : 2;
        } finally {
            group.shutdownGracefully();
        }
    }

    /** Waits until every event {@code from .. to - 1} arrived at least once (within the timeout). */
    private boolean awaitAll(final int from, final int to) throws InterruptedException {
        final long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
        int next = from;
        while (System.nanoTime() < deadline) {
            while (next < to && seen.get(next) > 0) {
                next++;
            }
            if (next == to) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    private void publishAll(final HttpClient http, final String topic, final int first, final int count)
            throws Exception {
        final ExecutorService pool = Executors.newFixedThreadPool(publishers);
        try {
            final List<Future<?>> done = new ArrayList<>();
            final int per = (count + publishers - 1) / publishers;
            for (int p = 0; p < publishers; p++) {
                final int from = first + p * per;
                final int to = Math.min(first + count, from + per);
                done.add(pool.submit(() -> {
                    for (int i = from; i < to; i += batch) {
                        publish(http, topic, i, Math.min(batch, to - i), batch);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    /** Publishes events {@code first .. first + count - 1} as one batch request. */
    private void publish(final HttpClient http, final String topic, final int first, final int count,
                         final int capacityHint) throws Exception {
        final String data = "x".repeat(dataBytes);
        final StringBuilder body = new StringBuilder(capacityHint * (dataBytes + 128)).append('[');
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                body.append(',');
            }
            body.append("{\"specversion\":\"1.0\",\"id\":\"e-").append(first + i)
                    .append("\",\"source\":\"/bench\",\"type\":\"bench.event\",\"datacontenttype\":\"text/plain\","
                            + "\"data\":\"").append(data).append("\"}");
        }
        body.append(']');
        final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(broker + "/topics/" + topic))
                .header("content-type", "application/cloudevents-batch+json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException("publish failed: " + r.statusCode() + " " + r.body());
        }
    }

    private void record(final String id) {
        delivered.incrementAndGet();
        if (id == null || !id.startsWith("e-")) {
            return;
        }
        final int n;
        try {
            n = Integer.parseInt(id, 2, id.length(), 10);
        } catch (NumberFormatException e) {
            return;
        }
        if (n >= 0 && n < seen.length() && seen.getAndIncrement(n) == 0) {
            distinct.incrementAndGet();
            lastNewNanos = System.nanoTime();
        }
    }
}
