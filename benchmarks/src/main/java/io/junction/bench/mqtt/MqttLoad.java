package io.junction.bench.mqtt;

import io.junction.bench.measure.FixedRateDriver;
import io.junction.bench.measure.FixedRateReport;
import io.junction.bench.measure.LatencyRecorder;
import io.junction.bench.measure.OpenLoopLatency;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * MQTT load against any broker (Junction, Mosquitto, Artemis): the same light Netty client for all of them, so the
 * broker is what differs.
 *
 * <p>{@code pubsub}: {@code --publishers} clients publish QoS 1 {@code --payload}-byte messages to one topic, each
 * keeping {@code --window} unacknowledged, while {@code --subscribers} clients receive them at QoS 1; fan-in is many
 * publishers and one subscriber, fan-out one publisher and many subscribers. After {@code --warmup} seconds it
 * measures for {@code --duration} seconds, stops publishing, waits for the subscribers to catch up, and prints one
 * line of {@code key=value} results: publish rate (PUBACKs/s), delivery rate (deliveries/s summed over subscribers),
 * end-to-end latency percentiles and how many acknowledged publishes some subscriber never got ({@code missing}).
 *
 * <p>{@code fixed-rate}: the same clients, open loop ({@link FixedRateDriver}): publishes start at {@code --rate}
 * per second in total, spread round-robin over the publishers, with no window, whether or not earlier ones were
 * acknowledged; after {@code --warmup} seconds at that rate, {@code --duration} seconds are measured. Prints one
 * {@link FixedRateReport} line: PUBACK and end-to-end latency from each publish's intended time, and, given
 * {@code --broker-pids}, the brokers' CPU per message.
 *
 * <p>{@code idle}: opens {@code --connections} connections that only CONNECT and ping at half the keep-alive, spread
 * over source addresses 127.0.0.2.. so no single address runs out of ephemeral ports, then holds them for
 * {@code --hold} seconds printing how many are open; the caller measures the broker meanwhile.
 */
@Command(name = "MqttLoad", mixinStandardHelpOptions = true, description = "MQTT load generator (3.1.1, QoS 1).")
public final class MqttLoad implements Callable<Integer> {
    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Broker host (${DEFAULT-VALUE}).")
    String host;
    @Option(names = "--port", defaultValue = "1883", description = "Broker port (${DEFAULT-VALUE}).")
    int port;
    @Option(names = "--mode", defaultValue = "pubsub",
            description = "pubsub, fixed-rate or idle (${DEFAULT-VALUE}).")
    String mode;
    @Option(names = "--rate", defaultValue = "1000",
            description = "fixed-rate: publishes per second, all publishers together (${DEFAULT-VALUE}).")
    double rate;
    @Option(names = "--broker-pids", split = ",",
            description = "fixed-rate: process ids whose CPU time is charged to the measured messages.")
    long[] brokerPids = new long[0];
    @Option(names = "--username", description = "User name every client connects with (none by default).")
    private String username;

    @Option(names = "--password", description = "Password every client connects with.")
    private String password;

    @Option(names = "--label", defaultValue = "", description = "Printed first on the result line.")
    String label;
    @Option(names = "--publishers", defaultValue = "1", description = "Publishing clients (${DEFAULT-VALUE}).")
    int publishers;
    @Option(names = "--subscribers", defaultValue = "1", description = "Subscribing clients (${DEFAULT-VALUE}).")
    int subscribers;
    @Option(names = "--topic", defaultValue = "bench/load", description = "Topic (${DEFAULT-VALUE}).")
    String topic;
    @Option(names = "--payload", defaultValue = "64", description = "Payload bytes, >= 8 (${DEFAULT-VALUE}).")
    int payload;
    @Option(names = "--window", defaultValue = "10",
            description = "Unacknowledged publishes per publisher (${DEFAULT-VALUE}).")
    int window;
    @Option(names = "--warmup", defaultValue = "5", description = "Warm-up seconds (${DEFAULT-VALUE}).")
    int warmup;
    @Option(names = "--duration", defaultValue = "20", description = "Measured seconds (${DEFAULT-VALUE}).")
    int duration;
    @Option(names = "--threads", defaultValue = "2", description = "Client event-loop threads (${DEFAULT-VALUE}).")
    int threads;
    @Option(names = "--connections", defaultValue = "10000", description = "idle: connections (${DEFAULT-VALUE}).")
    int connections;
    @Option(names = "--keep-alive", defaultValue = "60", description = "Keep-alive seconds (${DEFAULT-VALUE}).")
    int keepAlive;
    @Option(names = "--hold", defaultValue = "60", description = "idle: seconds to hold (${DEFAULT-VALUE}).")
    int hold;

    /** Clients connecting at the same time in {@code pubsub}. */
    private static final int CONNECTS_AT_ONCE = 10;

    public static void main(final String[] args) {
        System.exit(new CommandLine(new MqttLoad()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory());
        try {
            return switch (mode) {
                case "idle" -> idle(group);
                case "fixed-rate" -> fixedRate(group);
                default -> pubsub(group);
            };
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private int pubsub(final EventLoopGroup group) throws Exception {
        final MqttClientHandler.Run run = new MqttClientHandler.Run(topic, window, payload);
        final String prefix = "load-" + ProcessHandle.current().pid() + "-";
        final List<Client> subs = connectAll(group, MqttClientHandler.Role.SUBSCRIBER, prefix + "s", subscribers, run);
        final List<Client> pubs = connectAll(group, MqttClientHandler.Role.PUBLISHER, prefix + "p", publishers, run);
        for (final Client p : pubs) {
            p.channel.eventLoop().execute(() -> p.handler.startPublishing(p.channel.pipeline().lastContext()));
        }
        TimeUnit.SECONDS.sleep(warmup);
        run.measuring = true;
        final long start = System.nanoTime();
        TimeUnit.SECONDS.sleep(duration);
        run.measuring = false;
        final long measuredNanos = System.nanoTime() - start;
        run.publishing = false;

        // Drain: wait until every publisher's window is acknowledged and every subscriber has every message.
        final long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long published;
        long expected;
        long delivered;
        do {
            TimeUnit.MILLISECONDS.sleep(200);
            published = sum(pubs, h -> h.acked);
            final long inFlight = sum(pubs, h -> h.outstanding());
            expected = published * subscribers;
            delivered = sum(subs, h -> h.received);
            if (inFlight == 0 && delivered >= expected) {
                break;
            }
        } while (System.nanoTime() < drainDeadline);

        final double seconds = measuredNanos / 1e9;
        final long pubMeasured = sum(pubs, h -> h.ackedMeasured);
        final long subMeasured = sum(subs, h -> h.receivedMeasured);
        final List<LatencyRecorder> recorders = new ArrayList<>();
        for (final Client s : subs) {
            recorders.add(onLoop(s, h -> h.latency));
        }
        final LatencyRecorder.Percentiles p = LatencyRecorder.merge(recorders);
        System.out.printf("%spublishers=%d subscribers=%d payload=%d window=%d pub_per_s=%.0f deliver_per_s=%.0f "
                        + "e2e_p50_ms=%.2f e2e_p99_ms=%.2f published=%d delivered=%d missing=%d closed=%d%n",
                label.isEmpty() ? "" : label + " ", publishers, subscribers, payload, window, pubMeasured / seconds,
                subMeasured / seconds, p.p50() / 1e6, p.p99() / 1e6, published, delivered,
                Math.max(0, expected - delivered), run.closedConnections());
        for (final Client c : pubs) {
            c.channel.close();
        }
        for (final Client c : subs) {
            c.channel.close();
        }
        return expected - delivered > 0 || run.closedConnections() > 0 ? 2 : 0;
    }

    private int fixedRate(final EventLoopGroup group) throws Exception {
        // One sender thread is enough: a publish is handed to the publisher's event loop, never awaited.
        final FixedRateDriver driver = new FixedRateDriver(rate, warmup, duration, 1, brokerPids);
        final OpenLoopLatency latency = driver.latency();
        final MqttClientHandler.Run run = new MqttClientHandler.Run(topic, 0, payload, latency);
        final String prefix = "rate-" + ProcessHandle.current().pid() + "-";
        final List<Client> subs = connectAll(group, MqttClientHandler.Role.SUBSCRIBER, prefix + "s", subscribers, run);
        final List<Client> pubs = connectAll(group, MqttClientHandler.Role.PUBLISHER, prefix + "p", publishers, run);
        driver.run((slot, intended) -> {
            final Client p = pubs.get((int) (slot % pubs.size()));
            p.channel.eventLoop().execute(() -> p.handler.publishAt(p.channel.pipeline().lastContext(), intended));
        });
        // Answers of the window's last publishes are still due: wait for every PUBACK and every delivery.
        final boolean drained = FixedRateDriver.await(() -> latency.acked() + latency.failed() >= latency.sent()
                && latency.delivered() >= latency.acked() * subscribers, 60);
        final FixedRateReport report = driver.report(subscribers);
        System.out.println(report.line(label) + " publishers=" + publishers + " subscribers=" + subscribers
                + " payload=" + payload + " drained=" + drained + " closed=" + run.closedConnections());
        for (final Client c : pubs) {
            c.channel.close();
        }
        for (final Client c : subs) {
            c.channel.close();
        }
        return report.missing() > 0 || report.failed() > 0 || run.closedConnections() > 0 ? 2 : 0;
    }

    private int idle(final EventLoopGroup group) throws Exception {
        final MqttClientHandler.Run run = new MqttClientHandler.Run(topic, 0, payload);
        final String prefix = "idle-" + ProcessHandle.current().pid() + "-";
        final List<Client> clients = new ArrayList<>();
        final long t0 = System.nanoTime();
        final int perAddress = 20_000;
        for (int i = 0; i < connections; i++) {
            final InetSocketAddress local = new InetSocketAddress("127.0." + (i / perAddress / 250) + "."
                    + (2 + (i / perAddress) % 250), 0);
            clients.add(connect(group, MqttClientHandler.Role.IDLE, prefix + i, run, local));
            if (clients.size() % 500 == 0) {
                awaitReady(clients.subList(clients.size() - 500, clients.size())); // pace the CONNECT storm
            }
        }
        awaitReady(clients);
        System.out.printf("idle connected=%d in %.1f s%n", clients.size(), (System.nanoTime() - t0) / 1e9);
        for (int s = 0; s < hold; s += 5) {
            TimeUnit.SECONDS.sleep(Math.min(5, hold - s));
            System.out.printf("idle open=%d closed=%d%n", clients.stream().filter(c -> c.channel.isActive()).count(),
                    run.closedConnections());
        }
        for (final Client c : clients) {
            c.channel.close();
        }
        return run.closedConnections() > 0 ? 2 : 0;
    }

    /**
     * Connects {@code count} clients, at most {@link #CONNECTS_AT_ONCE} at a time, and waits until all are ready.
     * Artemis answers a CONNECT only once it has stored the session's state, on its server thread pool (30 threads):
     * 100 CONNECTs at once left every thread waiting for a store completion that needed one of them, and it refused
     * them all after its 5 s time-out ("connection closed before ready" here).
     */
    private List<Client> connectAll(final EventLoopGroup group, final MqttClientHandler.Role role, final String prefix,
                                    final int count, final MqttClientHandler.Run run) throws Exception {
        final List<Client> clients = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            clients.add(connect(group, role, prefix + i, run, null));
            if (clients.size() % CONNECTS_AT_ONCE == 0) {
                awaitReady(clients.subList(clients.size() - CONNECTS_AT_ONCE, clients.size()));
            }
        }
        awaitReady(clients);
        return clients;
    }

    private Client connect(final EventLoopGroup group, final MqttClientHandler.Role role, final String id,
                           final MqttClientHandler.Run run, final InetSocketAddress local) {
        final MqttClientHandler handler = new MqttClientHandler(role, id, run,
                role == MqttClientHandler.Role.IDLE ? keepAlive : 0, username, password);
        final Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 30_000)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel ch) {
                        ch.pipeline().addLast(new MqttDecoder(1 << 20), MqttEncoder.INSTANCE, handler);
                    }
                });
        final InetSocketAddress remote = new InetSocketAddress(host, port);
        final Channel channel = (local == null ? b.connect(remote) : b.connect(remote, local)).channel();
        return new Client(channel, handler);
    }

    private static void awaitReady(final List<Client> clients) throws Exception {
        CompletableFuture.allOf(clients.stream().map(c -> c.handler.ready).toArray(CompletableFuture[]::new))
                .get(120, TimeUnit.SECONDS);
    }

    /** Reads a handler's state on its own event loop (its fields are written only there). */
    private static <T> T onLoop(final Client c, final Function<MqttClientHandler, T> read)
            throws Exception {
        return c.channel.eventLoop().submit(() -> read.apply(c.handler)).get(10, TimeUnit.SECONDS);
    }

    private static long sum(final List<Client> clients,
                            final ToLongFunction<MqttClientHandler> read) throws Exception {
        long total = 0;
        for (final Client c : clients) {
            total += onLoop(c, h -> read.applyAsLong(h));
        }
        return total;
    }

    private record Client(Channel channel, MqttClientHandler handler) {
    }
}
