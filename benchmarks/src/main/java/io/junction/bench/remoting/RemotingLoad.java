package io.junction.bench.remoting;

import io.junction.bench.measure.ProcessCpu;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.apache.rocketmq.client.producer.DefaultMQProducer;

/**
 * Load main: sync sends of fixed-size bodies from many threads for a fixed time, then a push consumer draining the
 * topic. A warm-up comes first: sends for {@code --warmup-seconds}, drained by a consumer of another group, so both the
 * send and the consume paths of broker and client are compiled before anything is measured. Prints the figures and
 * one machine-readable {@code RESULT key=value ...} line.
 *
 * <pre>
 * java -cp benchmarks/target/classes:ROCKETMQ_CLASSPATH io.junction.bench.remoting.RemotingLoad \
 *      --namesrv 127.0.0.1:9876 [--label junction] [--threads 32] [--seconds 30] [--warmup-seconds 5] \
 *      [--size 1024] [--queues 8] [--drains 1] [--warmup-drains 0]
 *      [--drain-timeout-seconds 300] [--broker-pids PID,PID] [--producer-namesrvs HOST:PORT,HOST:PORT]
 *      [--proxy-pids PID,PID] [--topic EXISTING]
 * </pre>
 *
 * <p>The topic (a new one per run) is created with {@code --queues} queues through the client's own topic creation,
 * which works against both a RocketMQ broker and Junction; {@code --topic} names a topic made beforehand instead (by
 * mqadmin: RocketMQ's proxy takes no topic creation from clients), of at least {@code --queues} queues. With {@code --broker-pids} it also reports the CPU time those
 * processes (the broker under test) spent per message in each phase, read from {@code /proc}. With {@code --drains N}
 * the topic is drained N times by new groups (after {@code --warmup-drains} unmeasured ones) and the median drain is
 * reported. With {@code --producer-namesrvs} the sends go through one producer per address listed (each its own client,
 * the sender threads split evenly over them: half through each of two proxies), the topic made through the first;
 * the drains read through {@code --namesrv}. {@code --proxy-pids} names which of the broker processes are proxies:
 * their share of the brokers' CPU is reported apart ({@code proxy_send_us}, {@code proxy_drain_us}; the rest is the
 * store nodes'). Exit status: 0 when every message sent was drained,
 * 2 when some were not (or sends failed), 1 on a usage error.
 */
public final class RemotingLoad {
    private RemotingLoad() {
    }

    public static void main(final String[] args) throws Exception {
        final Map<String, String> o = LoadOptions.parse(args, "RemotingLoad --namesrv HOST:PORT [--label NAME] "
                + "[--threads 32] [--seconds 30] [--warmup-seconds 5] [--size 1024] [--queues 8] [--drains 1] "
                + "[--warmup-drains 0] [--drain-timeout-seconds 300] [--broker-pids PID,PID] "
                + "[--producer-namesrvs HOST:PORT,HOST:PORT] [--proxy-pids PID,PID] [--topic EXISTING]");
        final String nameServer = o.getOrDefault("namesrv", "127.0.0.1:9876");
        final String label = o.getOrDefault("label", "broker");
        final int threads = Integer.parseInt(o.getOrDefault("threads", "32"));
        final long seconds = Long.parseLong(o.getOrDefault("seconds", "30"));
        final long warmup = Long.parseLong(o.getOrDefault("warmup-seconds", "5"));
        final int size = Integer.parseInt(o.getOrDefault("size", "1024"));
        final int queues = Integer.parseInt(o.getOrDefault("queues", "8"));
        final long drainTimeout = Long.parseLong(o.getOrDefault("drain-timeout-seconds", "300"));
        final int drains = Math.max(1, Integer.parseInt(o.getOrDefault("drains", "1")));
        final int warmupDrains = Math.max(0, Integer.parseInt(o.getOrDefault("warmup-drains", "0")));
        final ProcessCpu brokers = new ProcessCpu(pids(o.get("broker-pids")));
        final ProcessCpu proxies = new ProcessCpu(pids(o.get("proxy-pids")));
        final List<String> entryPoints = Arrays.asList(o.getOrDefault("producer-namesrvs", nameServer).split(","));

        final String run = label + "-" + ProcessHandle.current().pid() + "-" + Long.toString(System.nanoTime(), 36);
        final String topic = o.getOrDefault("topic", "bench-" + run);
        final byte[] body = new byte[size];
        new Random(42).nextBytes(body);

        final List<DefaultMQProducer> producers = new ArrayList<>();
        final SendPhase.Result warm;
        final SendPhase.Result measured;
        final long[] sendCpu = new long[3]; // brokers, this client, proxies: CPU nanoseconds of the measured send phase
        try {
            for (int i = 0; i < entryPoints.size(); i++) {
                producers.add(LoadProducer.start(entryPoints.get(i), "bench-producer-" + i + "-" + run));
            }
            if (o.containsKey("topic")) {
                LoadProducer.awaitTopic(producers.get(0), topic, queues);
            } else {
                LoadProducer.createTopic(producers.get(0), topic, queues);
            }
            for (DefaultMQProducer other : producers.subList(1, producers.size())) {
                LoadProducer.awaitRoute(other, topic, queues);
            }
            warm = SendPhase.run(producers, topic, body, threads, warmup);
            // Warm the consume path as well (broker and client compile it), so the measured drain runs compiled code.
            DrainPhase.run(nameServer, "bench-warm-" + run, topic, 1 + warm.sent(), drainTimeout);
            sendCpu[0] = brokers.nanos();
            sendCpu[1] = ProcessCpu.self();
            sendCpu[2] = proxies.nanos();
            measured = SendPhase.run(producers, topic, body, threads, seconds);
            sendCpu[0] = brokers.nanos() - sendCpu[0];
            sendCpu[1] = ProcessCpu.self() - sendCpu[1];
            sendCpu[2] = proxies.nanos() - sendCpu[2];
        } finally {
            producers.forEach(DefaultMQProducer::shutdown);
        }
        final long sent = 1 + warm.sent() + measured.sent(); // the first message made the route live
        // Each drain reads the whole topic again with a new group. The first --warmup-drains are not measured (the
        // warm-up phase's drain is too short for the JIT to finish the consume path on two cores); of the others the
        // median one (by rate) is reported with the CPU spent during it, so one drain disturbed by another tenant does
        // not decide the figure.
        final List<MeasuredDrain> runs = new ArrayList<>();
        for (int i = -warmupDrains; i < drains; i++) {
            final long brokerCpu = brokers.nanos();
            final long proxyCpu = proxies.nanos();
            final long selfCpu = ProcessCpu.self();
            final DrainPhase.Result r = DrainPhase.run(nameServer, "bench-drain-" + i + "-" + run, topic, sent,
                    drainTimeout);
            final MeasuredDrain m = new MeasuredDrain(r, brokers.nanos() - brokerCpu, proxies.nanos() - proxyCpu,
                    ProcessCpu.self() - selfCpu);
            final double received = Math.max(1, r.received());
            System.err.printf(Locale.ROOT, "%s: %s drain %d: %,.0f msg/s, CPU per message: broker %.1f us, client %.1f "
                            + "us%n", label, i < 0 ? "warm-up" : "measured", i < 0 ? i + warmupDrains + 1 : i + 1,
                    r.perSecond(), m.brokerNanos() / 1e3 / received, m.clientNanos() / 1e3 / received);
            if (i >= 0) {
                runs.add(m);
            }
        }
        runs.sort(Comparator.comparingDouble(m -> m.result().perSecond()));
        final MeasuredDrain median = runs.get(runs.size() / 2);
        final DrainPhase.Result drain = median.result();
        final double brokerSendUs = sendCpu[0] / 1e3 / Math.max(1, measured.sent());
        final double clientSendUs = sendCpu[1] / 1e3 / Math.max(1, measured.sent());
        final double brokerDrainUs = median.brokerNanos() / 1e3 / Math.max(1, drain.received());
        final double clientDrainUs = median.clientNanos() / 1e3 / Math.max(1, drain.received());
        final double proxySendUs = sendCpu[2] / 1e3 / Math.max(1, measured.sent());
        final double proxyDrainUs = median.proxyNanos() / 1e3 / Math.max(1, drain.received());

        final double p50 = measured.latency().p50() / 1e6;
        final double p99 = measured.latency().p99() / 1e6;
        System.out.printf(Locale.ROOT, "%s: %d threads x %d s sync send of %d-byte bodies to %d queues: %,.0f msg/s, "
                        + "p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, %d failed%n", label, threads, seconds, size, queues,
                measured.perSecond(), p50, p99, measured.latency().p999() / 1e6, measured.failed());
        System.out.printf(Locale.ROOT, "%s: push consumer drained %,d of %,d messages at %,.0f msg/s (%.1f s from its "
                        + "start; median of %d drains: %s msg/s)%n", label, drain.received(), sent, drain.perSecond(),
                drain.totalNanos() / 1e9, drains, runs.stream().map(m -> String.format(Locale.ROOT, "%,.0f",
                        m.result().perSecond())).collect(Collectors.joining(" ")));
        System.out.printf(Locale.ROOT, "%s: CPU per message, send phase: broker %.1f us, client %.1f us; drain phase: "
                + "broker %.1f us, client %.1f us; of the brokers', the proxies': send %.1f us, drain %.1f us%n", label,
                brokerSendUs, clientSendUs, brokerDrainUs, clientDrainUs, proxySendUs, proxyDrainUs);
        System.out.printf(Locale.ROOT, "RESULT label=%s topic=%s threads=%d seconds=%d size=%d sent=%d failed=%d "
                        + "tps=%.1f p50_ms=%.3f p99_ms=%.3f drained=%d drain_rate=%.1f drain_seconds=%.2f "
                        + "broker_send_us=%.2f client_send_us=%.2f broker_drain_us=%.2f client_drain_us=%.2f "
                        + "proxy_send_us=%.2f proxy_drain_us=%.2f%n", label, topic, threads, seconds, size,
                measured.sent(), measured.failed() + warm.failed(), measured.perSecond(), p50, p99,
                drain.received(), drain.perSecond(), drain.totalNanos() / 1e9, brokerSendUs, clientSendUs,
                brokerDrainUs, clientDrainUs, proxySendUs, proxyDrainUs);
        final boolean allDrained = !runs.isEmpty() && runs.stream().allMatch(m -> m.result().received() >= sent);
        System.exit(allDrained && measured.failed() + warm.failed() == 0 ? 0 : 2);
    }

    /** Process ids from {@code PID,PID}; none when absent. */
    private static long[] pids(final String list) {
        return list == null ? new long[0] : Arrays.stream(list.split(",")).mapToLong(Long::parseLong).toArray();
    }

    /** One measured drain with the CPU time the brokers (of which the proxies) and this client spent during it. */
    private record MeasuredDrain(DrainPhase.Result result, long brokerNanos, long proxyNanos, long clientNanos) {
    }
}
