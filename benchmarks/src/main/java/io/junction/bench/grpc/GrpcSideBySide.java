package io.junction.bench.grpc;

import io.junction.bench.measure.ProcessCpu;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * gRPC side by side, in one run: the same {@link GrpcLoad} (rocketmq-client-java 5.x: 1 KiB bodies, 32 sender
 * threads, 30 s, then a SimpleConsumer drain) against Junction's gRPC front-end and against Apache RocketMQ 5.3.3's
 * proxy in cluster mode (with its name server and broker), one after the other on this machine's loopback, each with
 * a fresh data directory and asynchronous flushing. Prints both results, the ratios and the bars: Junction's send
 * rate and drain rate at least 1.5 times the proxy's, its send p99 no worse. Exit 0 when every bar passes, 2 when
 * one fails, 1 on a usage or run error.
 *
 * <pre>
 * mvn -q -f benchmarks/peers/rocketmq-proxy/pom.xml dependency:build-classpath -Dmdep.outputFile=/tmp/rmq.cp
 * java -cp benchmarks/target/benchmarks.jar io.junction.bench.grpc.GrpcSideBySide \
 *      --junction-jar broker/target/junction.jar --rocketmq-classpath /tmp/rmq.cp [--seconds 30] [--threads 32]
 * </pre>
 *
 * <p>With {@code --endpoints} it runs the load alone against a running server (scripts/proxy-vs-rocketmq.sh starts
 * the servers) and adds a machine-readable {@code RESULT key=value ...} line; {@code --broker-pids} (the server's
 * processes, of them {@code --proxy-pids}) adds their CPU time per message of the measured send phase. It exits
 * with 2 when a send failed or the drain did not get every message back.
 */
public final class GrpcSideBySide {
    private static final Duration START_LIMIT = Duration.ofSeconds(120);

    private GrpcSideBySide() {
    }

    public static void main(final String[] args) throws Exception {
        final Map<String, String> opts = options(args);
        if (opts.containsKey("help") || !opts.containsKey("rocketmq-classpath") && !opts.containsKey("endpoints")
                && !"junction".equals(opts.get("only"))) {
            System.out.println("usage: GrpcSideBySide --rocketmq-classpath FILE [--junction-jar broker/target/junction.jar]"
                    + " [--seconds 30] [--threads 32] [--body 1024] [--drain-threads 8] [--dir DIR]"
                    + " [--only junction|rocketmq] [--junction-jvm-args '-Xmx1g ...']\n"
                    + "      [--rate MSGS_PER_S]   (fixed-rate mode: open-loop sends and a push consumer, latency"
                    + " percentiles and CPU per message instead of closed-loop rates)\n"
                    + "   or: GrpcSideBySide --endpoints HOST:PORT [--topic T] [--label L] [--broker-pids PID,PID]"
                    + " [--proxy-pids PID] ...   (the load alone, against a running server)");
            System.exit(opts.containsKey("help") ? 0 : 1);
        }
        final GrpcLoad.Settings settings = new GrpcLoad.Settings(
                Integer.parseInt(opts.getOrDefault("body", "1024")),
                Integer.parseInt(opts.getOrDefault("threads", "32")),
                Duration.ofSeconds(Long.parseLong(opts.getOrDefault("seconds", "30"))),
                Duration.ofSeconds(Long.parseLong(opts.getOrDefault("warm-up-seconds", "5"))),
                Integer.parseInt(opts.getOrDefault("drain-threads", "8")),
                Duration.ofSeconds(Long.parseLong(opts.getOrDefault("drain-limit-seconds", "180"))));
        if (opts.containsKey("endpoints")) {
            final String topic = opts.getOrDefault("topic", "grpc-bench");
            final GrpcLoad.Result r = GrpcLoad.run(opts.get("endpoints"), topic, topic + "-group", settings,
                    new ProcessCpu(pids(opts.get("broker-pids"))), new ProcessCpu(pids(opts.get("proxy-pids"))));
            print(opts.get("endpoints"), r);
            result(opts.getOrDefault("label", "grpc"), topic, settings, r);
            System.exit(r.sendErrors() == 0 && r.drained() >= r.expected() ? 0 : 2);
        }
        // Only a run that starts servers needs a directory (the load alone against a running server writes nothing).
        final Path dir = opts.containsKey("dir") ? Path.of(opts.get("dir"))
                : Files.createTempDirectory("grpc-side-by-side");
        Files.createDirectories(dir);
        final String only = opts.getOrDefault("only", "");
        final Path jar = Path.of(opts.getOrDefault("junction-jar", "broker/target/junction.jar"));
        final List<String> jvmArgs = List.of(opts.getOrDefault("junction-jvm-args", "-Xmx1g").trim().split("\\s+"));
        final String classpath = "junction".equals(only) ? null
                : Files.readString(Path.of(opts.get("rocketmq-classpath")), StandardCharsets.UTF_8).trim();
        if (opts.containsKey("rate")) {
            final GrpcFixedRate.Settings rate = new GrpcFixedRate.Settings(Double.parseDouble(opts.get("rate")),
                    Integer.parseInt(opts.getOrDefault("warm-up-seconds", "10")),
                    Integer.parseInt(opts.getOrDefault("seconds", "30")), settings.threads(), settings.bodyBytes());
            System.out.printf(Locale.ROOT, "gRPC side by side at a fixed rate: %.0f msg/s offered, %d B bodies, "
                    + "%d sender threads, %d s measured after %d s; run directory %s%n", rate.rate(),
                    rate.bodyBytes(), rate.threads(), rate.durationSeconds(), rate.warmupSeconds(), dir);
            final ServerLoad<String> load = (endpoint, pids) ->
                    GrpcFixedRate.run(endpoint, "grpc-bench", "grpc-bench-group", rate, pids).line("");
            final String junction = "rocketmq".equals(only) ? null : junction(jar, jvmArgs, dir, load);
            if (junction != null) {
                System.out.println("junction " + junction);
            }
            final String proxy = classpath == null ? null : runRocketMq(classpath, dir.resolve("rocketmq"), load);
            if (proxy != null) {
                System.out.println("rocketmq " + proxy);
            }
            if (junction != null && proxy != null) {
                final StringBuilder ratios = new StringBuilder("ratio junction/rocketmq:");
                for (String key : List.of("send_p50_ms", "send_p99_ms", "send_p999_ms", "e2e_p50_ms", "e2e_p99_ms",
                        "e2e_p999_ms", "broker_cpu_us_per_msg", "broker_cpu_us_per_msg_above_idle")) {
                    final double j = field(junction, key);
                    final double r = field(proxy, key);
                    ratios.append(String.format(Locale.ROOT, " %s=%s", key,
                            r > 0 ? String.format(Locale.ROOT, "%.2f", j / r) : "n/a"));
                }
                System.out.println(ratios);
            }
            System.exit(0);
        }
        System.out.printf(Locale.ROOT, "gRPC side by side: %d B bodies, %d senders for %s (after %s warm-up), "
                + "%d drainers; run directory %s%n", settings.bodyBytes(), settings.threads(), settings.sendTime(),
                settings.warmUp(), settings.drainThreads(), dir);

        final ServerLoad<GrpcLoad.Result> load = (endpoint, pids) ->
                GrpcLoad.run(endpoint, "grpc-bench", "grpc-bench-group", settings);
        GrpcLoad.Result junction = null;
        GrpcLoad.Result proxy = null;
        if (!"rocketmq".equals(only)) {
            junction = junction(jar, jvmArgs, dir, load);
            print("Junction", junction);
        }
        if (classpath != null) {
            proxy = runRocketMq(classpath, dir.resolve("rocketmq"), load);
            print("RocketMQ 5.3.3 proxy", proxy);
        }
        if (junction == null || proxy == null) {
            System.exit(0);
        }
        final double send = junction.sendRate() / proxy.sendRate();
        final double drain = junction.drainRate() / proxy.drainRate();
        final double p99 = (double) junction.p99() / proxy.p99();
        System.out.printf(Locale.ROOT, "%nJunction / proxy: send %.2fx, drain %.2fx, send p99 %.2fx%n", send, drain,
                p99);
        final boolean sendOk = send >= 1.5;
        final boolean drainOk = drain >= 1.5;
        final boolean p99Ok = junction.p99() <= proxy.p99();
        System.out.printf(Locale.ROOT, "bar send   >= 1.5x proxy : %s%n", sendOk ? "PASS" : "FAIL");
        System.out.printf(Locale.ROOT, "bar drain  >= 1.5x proxy : %s%n", drainOk ? "PASS" : "FAIL");
        System.out.printf(Locale.ROOT, "bar p99   <= proxy's     : %s%n", p99Ok ? "PASS" : "FAIL");
        System.exit(sendOk && drainOk && p99Ok ? 0 : 2);
    }

    /** Runs {@code load} against a fresh Junction; a port taken between the probe and the bind gets new ports. */
    private static <T> T junction(final Path jar, final List<String> jvmArgs, final Path dir, final ServerLoad<T> load)
            throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return runJunction(jar, jvmArgs, dir.resolve("junction-" + attempt), load);
            } catch (IllegalStateException e) {
                if (attempt == 3 || !e.getMessage().contains("in use") && !e.getMessage().contains("bind")) {
                    throw e;
                }
            }
        }
    }

    /** The number after {@code key=} in a report line; -1 when absent. */
    private static double field(final String line, final String key) {
        for (String pair : line.split(" ")) {
            if (pair.startsWith(key + "=")) {
                return Double.parseDouble(pair.substring(key.length() + 1));
            }
        }
        return -1;
    }

    /** A load run against a started server: its gRPC endpoint, and the processes whose CPU counts as the server's. */
    @FunctionalInterface
    private interface ServerLoad<T> {
        T run(String endpoint, long[] serverPids) throws Exception;
    }

    private static <T> T runJunction(final Path jar, final List<String> jvmArgs, final Path dir,
                                     final ServerLoad<T> load) throws Exception {
        Files.createDirectories(dir);
        final int[] ports = ServerProcess.freePorts(5);
        final int grpc = ports[0];
        final List<String> args = new ArrayList<>(jvmArgs);
        args.addAll(List.of("-jar", jar.toAbsolutePath().toString(),
                "--data-dir", dir.resolve("data").toString(), "--set", "grpc.port=" + grpc,
                "--set", "grpc.auto-create-queues=8"));
        final List<String> others = List.of("http.port", "remoting.port", "mqtt.port", "amqp.port");
        for (int i = 0; i < others.size(); i++) {
            args.add("--set");
            args.add(others.get(i) + "=" + ports[i + 1]);
        }
        try (ServerProcess broker = ServerProcess.start("junction", dir, args, Map.of())) {
            broker.awaitOutput("Junction ready", START_LIMIT);
            broker.awaitPort(grpc, START_LIMIT);
            return load.run("127.0.0.1:" + grpc, new long[] {broker.pid()});
        }
    }

    private static <T> T runRocketMq(final String classpath, final Path dir, final ServerLoad<T> load)
            throws Exception {
        Files.createDirectories(dir);
        final Map<String, String> env = Map.of("ROCKETMQ_HOME", dir.toString());
        final int brokerPort = ServerProcess.freeBrokerPort();
        final int[] ports = ServerProcess.freePorts(3);
        final int ns = ports[0];
        final int grpc = ports[1];
        final int proxyRemoting = ports[2];
        write(dir.resolve("ns.conf"), "listenPort=" + ns + "\n" + "bindAddress=127.0.0.1\n");
        write(dir.resolve("broker.conf"), String.join("\n",
                "brokerClusterName=DefaultCluster", "brokerName=broker-a", "brokerId=0",
                "namesrvAddr=127.0.0.1:" + ns, "listenPort=" + brokerPort, "haListenPort=" + (brokerPort + 1),
                "bindAddress=127.0.0.1", "brokerIP1=127.0.0.1",
                "storePathRootDir=" + dir.resolve("store"), "storePathCommitLog=" + dir.resolve("store/commitlog"),
                "flushDiskType=ASYNC_FLUSH", "autoCreateTopicEnable=true", "autoCreateSubscriptionGroup=true",
                "timerWheelEnable=true", "") + "\n");
        write(dir.resolve("rmq-proxy.json"), "{\"rocketMQClusterName\": \"DefaultCluster\", \"namesrvAddr\": "
                + "\"127.0.0.1:" + ns + "\", \"proxyMode\": \"cluster\", \"grpcServerPort\": " + grpc
                + ", \"remotingListenPort\": " + proxyRemoting + "}\n");
        final List<String> jvm = List.of("-Drocketmq.home.dir=" + dir, "-Duser.home=" + dir, "-cp", classpath);
        try (ServerProcess nameServer = ServerProcess.start("namesrv", dir, concat(jvm, "-Xmx256m",
                "org.apache.rocketmq.namesrv.NamesrvStartup", "-c", dir.resolve("ns.conf").toString()), env)) {
            nameServer.awaitPort(ns, START_LIMIT);
            try (ServerProcess broker = ServerProcess.start("broker", dir, concat(jvm, "-Xmx512m",
                    "org.apache.rocketmq.broker.BrokerStartup", "-c", dir.resolve("broker.conf").toString()), env)) {
                broker.awaitOutput("boot success", START_LIMIT);
                final int created = ServerProcess.start("mqadmin", dir, concat(jvm, "-Xmx256m",
                        "org.apache.rocketmq.tools.command.MQAdminStartup", "updateTopic", "-n", "127.0.0.1:" + ns,
                        "-c", "DefaultCluster", "-t", "grpc-bench", "-r", "8", "-w", "8"), env)
                        .awaitExit(START_LIMIT);
                if (created != 0) {
                    throw new IllegalStateException("mqadmin updateTopic exited with " + created);
                }
                try (ServerProcess proxy = ServerProcess.start("proxy", dir, concat(jvm, "-Xmx512m",
                        "org.apache.rocketmq.proxy.ProxyStartup", "-pc", dir.resolve("rmq-proxy.json").toString(),
                        "-pm", "cluster"), env)) {
                    proxy.awaitPort(grpc, START_LIMIT);
                    // the proxy learns the route from the name server: give it its first refresh
                    ServerProcess.sleep(3_000);
                    return load.run("127.0.0.1:" + grpc,
                            new long[] {proxy.pid(), broker.pid(), nameServer.pid()});
                }
            }
        }
    }

    private static void print(final String who, final GrpcLoad.Result r) {
        System.out.printf(Locale.ROOT, "%-22s send %,10.0f msg/s (%,d in %.1f s, %d errors), p50 %.2f ms, p99 %.2f ms,"
                        + " p99.9 %.2f ms; drain %,10.0f msg/s (%,d in %.1f s)%n", who, r.sendRate(), r.sent(),
                r.sendSeconds(), r.sendErrors(), r.p50() / 1e6, r.p99() / 1e6, r.p999() / 1e6, r.drainRate(),
                r.drained(), r.drainSeconds());
    }

    /** The machine-readable line of an {@code --endpoints} run; CPU per message of the measured send phase. */
    private static void result(final String label, final String topic, final GrpcLoad.Settings s,
                               final GrpcLoad.Result r) {
        final double messages = Math.max(1, r.sent());
        System.out.printf(Locale.ROOT, "RESULT label=%s topic=%s threads=%d seconds=%d size=%d sent=%d failed=%d "
                        + "tps=%.1f p50_ms=%.3f p99_ms=%.3f drained=%d expected=%d drain_rate=%.1f "
                        + "broker_send_us=%.2f proxy_send_us=%.2f client_send_us=%.2f%n", label, topic, s.threads(),
                s.sendTime().toSeconds(), s.bodyBytes(), r.sent(), r.sendErrors(), r.sendRate(), r.p50() / 1e6,
                r.p99() / 1e6, r.drained(), r.expected(), r.drainRate(), r.sendCpu().servers() / 1e3 / messages,
                r.sendCpu().proxies() / 1e3 / messages, r.sendCpu().client() / 1e3 / messages);
    }

    /** Process ids from {@code PID,PID}; none when absent. */
    private static long[] pids(final String list) {
        return list == null || list.isEmpty() ? new long[0]
                : Arrays.stream(list.split(",")).mapToLong(Long::parseLong).toArray();
    }

    private static List<String> concat(final List<String> head, final String... tail) {
        final List<String> all = new ArrayList<>();
        all.add(tail[0]);
        all.addAll(head);
        all.addAll(List.of(tail).subList(1, tail.length));
        return all;
    }

    private static void write(final Path file, final String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    private static Map<String, String> options(final String[] args) {
        final Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + args[i]);
            }
            final String key = args[i].substring(2);
            if (key.equals("help")) {
                opts.put(key, "");
            } else if (i + 1 < args.length) {
                opts.put(key, args[++i]);
            } else {
                throw new IllegalArgumentException("--" + key + " needs a value");
            }
        }
        return opts;
    }
}
