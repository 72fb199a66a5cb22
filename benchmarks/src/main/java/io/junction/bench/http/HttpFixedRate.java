package io.junction.bench.http;

import io.junction.bench.measure.FixedRateDriver;
import io.junction.bench.measure.OpenLoopLatency;
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
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * CloudEvents over HTTP at a fixed rate (or closed-loop, to calibrate): sender threads POST binary-mode events
 * ({@code ce-*} headers, a body of {@code --data} bytes) to {@code /topics/{topic}}, one request at a time per thread on
 * a kept-alive connection; the answer (2xx) is the send's acknowledgement. With {@code --push}, a push subscription
 * delivers the topic to a local sink (Netty, answering 200 at once) and end-to-end latency is measured too. Each
 * event's {@code ce-id} carries its slot's intended send time, so latencies are measured from it (coordinated omission
 * corrected). Against a server that stores nothing ({@link HttpCeilingServer}) it measures this machine's HTTP path at
 * the same rate, the yardstick for the broker's send latency.
 *
 * <p>Prints one line: fixed rate, {@code io.junction.bench.measure.FixedRateReport}'s {@code key=value} line;
 * closed loop, {@code RESULT closed_loop_per_s=...}.
 */
@Command(name = "HttpFixedRate", mixinStandardHelpOptions = true,
        description = "CloudEvents HTTP ingress (and push delivery) at a fixed rate, latency from intended send time.")
public final class HttpFixedRate implements Callable<Integer> {
    @Option(names = "--url", defaultValue = "http://127.0.0.1:8080", description = "Server base URL.")
    String url;
    @Option(names = "--label", defaultValue = "junction", description = "First word of the result line.")
    String label;
    @Option(names = "--rate", defaultValue = "0", description = "Events per second; 0 runs closed-loop.")
    double rate;
    @Option(names = "--threads", defaultValue = "32", description = "Sender threads (${DEFAULT-VALUE}).")
    int threads;
    @Option(names = "--warmup", defaultValue = "10", description = "Seconds before measuring (${DEFAULT-VALUE}).")
    int warmup;
    @Option(names = "--duration", defaultValue = "30", description = "Measured seconds (${DEFAULT-VALUE}).")
    int duration;
    @Option(names = "--data", defaultValue = "1024", description = "Bytes of data per event (${DEFAULT-VALUE}).")
    int dataBytes;
    @Option(names = "--push", description = "Also deliver through a push subscription to a local sink.")
    boolean push;
    @Option(names = "--broker-pids", split = ",", description = "Processes whose CPU counts as the server's.")
    long[] serverPids = new long[0];

    /** How long the last answers and deliveries may take after the run. */
    private static final int DRAIN_SECONDS = 120;
    private static final String ID_PREFIX = "t-";

    public static void main(final String[] args) {
        System.exit(new CommandLine(new HttpFixedRate()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        final String topic = "http-rate-" + Long.toHexString(System.nanoTime());
        final byte[] data = new byte[dataBytes];
        Arrays.fill(data, (byte) 'x');
        if (rate <= 0) {
            return closedLoop(http, topic, data);
        }
        final FixedRateDriver driver = new FixedRateDriver(rate, warmup, duration, threads, serverPids);
        final OpenLoopLatency latency = driver.latency();
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Channel sink = null;
            if (push) {
                sink = LocalSink.start(group, request -> {
                    final long intended = intendedOf(request.headers().get("ce-id"));
                    if (intended != Long.MIN_VALUE) {
                        latency.delivered(intended);
                    }
                });
                subscribe(http, topic, ((InetSocketAddress) sink.localAddress()).getPort());
            }
            driver.run((slot, intended) -> {
                if (post(http, topic, ID_PREFIX + intended + "-" + slot, data)) {
                    latency.acked(intended);
                } else {
                    latency.failed(intended);
                }
            });
            FixedRateDriver.await(() -> latency.acked() + latency.failed() >= latency.sent()
                    && (!push || latency.delivered() >= latency.acked()), DRAIN_SECONDS);
            System.out.println(driver.report(push ? 1 : 0).line(label));
            if (sink != null) {
                sink.close().sync();
            }
            return 0;
        } finally {
            group.shutdownGracefully();
        }
    }

    /** {@code threads} senders back to back for {@code warmup + duration} seconds; the rate of the last {@code duration}. */
    private int closedLoop(final HttpClient http, final String topic, final byte[] data) throws Exception {
        final long start = System.nanoTime();
        final long measureFrom = start + TimeUnit.SECONDS.toNanos(warmup);
        final long end = measureFrom + TimeUnit.SECONDS.toNanos(duration);
        final AtomicLong measured = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        final List<Thread> senders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final int thread = t;
            final Thread sender = new Thread(() -> {
                long n = 0;
                long now;
                while ((now = System.nanoTime()) < end) {
                    try {
                        final boolean ok = post(http, topic, "c-" + thread + "-" + n++, data);
                        if (!ok) {
                            failures.incrementAndGet();
                        } else if (now >= measureFrom) {
                            measured.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failures.incrementAndGet();
                    }
                }
            }, "closed-loop-" + t);
            sender.start();
            senders.add(sender);
        }
        for (Thread s : senders) {
            s.join();
        }
        System.out.printf(Locale.ROOT, "RESULT closed_loop_per_s=%.0f failed=%d%n",
                measured.get() / (double) duration, failures.get());
        return 0;
    }

    private boolean post(final HttpClient http, final String topic, final String id, final byte[] data)
            throws Exception {
        final HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(url + "/topics/" + topic))
                .header("ce-specversion", "1.0").header("ce-id", id).header("ce-source", "/bench")
                .header("ce-type", "bench.event").header("content-type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(data)).build(), HttpResponse.BodyHandlers.discarding());
        return r.statusCode() / 100 == 2;
    }

    /** The topic exists (one event published before) and a push subscription sends it to the sink. */
    private void subscribe(final HttpClient http, final String topic, final int sinkPort) throws Exception {
        post(http, topic, "created", new byte[1]);
        final HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(url + "/subscriptions/"
                        + topic)).header("content-type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"topic\":\"" + topic + "\",\"sink\":\"http://127.0.0.1:"
                        + sinkPort + "/sink\"}")).build(), HttpResponse.BodyHandlers.ofString());
        if (created.statusCode() / 100 != 2) {
            throw new IllegalStateException("creating the subscription failed: " + created.statusCode() + " "
                    + created.body());
        }
    }

    /** The intended send time in a {@code t-<nanos>-<slot>} id, or {@link Long#MIN_VALUE} for other events. */
    static long intendedOf(final String id) {
        if (id == null || !id.startsWith(ID_PREFIX)) {
            return Long.MIN_VALUE;
        }
        final int dash = id.indexOf('-', ID_PREFIX.length() + 1); // nanoTime may be negative: skip its sign
        try {
            return Long.parseLong(id, ID_PREFIX.length(), dash < 0 ? id.length() : dash, 10);
        } catch (NumberFormatException e) {
            return Long.MIN_VALUE;
        }
    }
}
