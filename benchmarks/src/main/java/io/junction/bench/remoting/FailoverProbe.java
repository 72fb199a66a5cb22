package io.junction.bench.remoting;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;

/**
 * One RocketMQ Remoting producer ({@code rocketmq-client}, sync sends of 1 KiB one after another) that tells a
 * failover script how long a broker group took to take writes again: the script writes {@code MARK <epoch ms>} to its
 * standard input just before it kills the group's leader, and the probe prints {@code FIRST <mark> <ms>} at the first
 * acknowledgement of a send begun after the mark ({@code ms} = that acknowledgement's time minus the mark). {@code
 * LEADER} on standard input prints {@code LEADER <host:port>}: the broker the name server lists as id 0 of the topic's
 * broker (a RocketMQ DLedger group's leader registers as id 0), or {@code LEADER none}. Prints {@code READY} at its
 * first acknowledgement. The same client settings for every broker: the client's own retries, a 3 s send timeout and
 * a 1 s route refresh (the default 30 s would measure the client's polling rather than the broker).
 *
 * <pre>
 * java -cp benchmarks/target/classes:ROCKETMQ_CLASSPATH io.junction.bench.remoting.FailoverProbe \
 *      --namesrv "127.0.0.1:9876;127.0.0.1:19876" [--topic failover] [--size 1024]
 * </pre>
 */
public final class FailoverProbe {
    private static final long ROUTE_POLL_MILLIS = 1000;
    private static final int SEND_TIMEOUT_MILLIS = 3000;
    /** Pause after a failed send (a refused connection fails at once; no busy loop while the group is down). */
    private static final long FAILURE_PAUSE_MILLIS = 20;

    private FailoverProbe() {
    }

    public static void main(final String[] args) throws Exception {
        final Map<String, String> o = options(args);
        System.setProperty("rocketmq.client.logRoot", System.getProperty("java.io.tmpdir") + "/rocketmq-bench-logs");
        System.setProperty("rocketmq.client.logLevel", "WARN");
        final String topic = o.getOrDefault("topic", "failover");
        final byte[] body = new byte[Integer.parseInt(o.getOrDefault("size", "1024"))];

        final DefaultMQProducer producer = new DefaultMQProducer("failover-probe");
        producer.setNamesrvAddr(o.getOrDefault("namesrv", "127.0.0.1:9876"));
        producer.setInstanceName("failover-probe-" + ProcessHandle.current().pid());
        producer.setPollNameServerInterval((int) ROUTE_POLL_MILLIS);
        producer.setSendMsgTimeout(SEND_TIMEOUT_MILLIS);
        producer.start();

        final AtomicLong mark = new AtomicLong(Long.MAX_VALUE);
        final Thread commands = new Thread(() -> readCommands(producer, topic, mark), "probe-commands");
        commands.setDaemon(true);
        commands.start();

        boolean ready = false;
        long reportedMark = Long.MIN_VALUE;
        long acks = 0;
        long failures = 0;
        long lastStatus = System.currentTimeMillis();
        while (true) {
            final long began = System.currentTimeMillis();
            boolean ok;
            try {
                ok = producer.send(new Message(topic, body)).getSendStatus() == SendStatus.SEND_OK;
            } catch (final Exception e) {
                ok = false;
            }
            final long now = System.currentTimeMillis();
            if (ok) {
                acks++;
                if (!ready) {
                    ready = true;
                    say("READY");
                }
                final long m = mark.get();
                if (m != Long.MAX_VALUE && m != reportedMark && began >= m) {
                    reportedMark = m;
                    say("FIRST " + m + " " + (now - m));
                }
            } else {
                failures++;
                TimeUnit.MILLISECONDS.sleep(FAILURE_PAUSE_MILLIS);
            }
            if (now - lastStatus >= 5000) {
                lastStatus = now;
                System.err.println("probe: " + acks + " acknowledged, " + failures + " failed");
            }
        }
    }

    private static void readCommands(final DefaultMQProducer producer, final String topic, final AtomicLong mark) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("MARK ")) {
                    mark.set(Long.parseLong(line.substring(5).trim()));
                } else if (line.equals("LEADER")) {
                    say("LEADER " + leader(producer, topic));
                } else if (line.equals("QUIT")) {
                    break;
                }
            }
        } catch (final Exception e) {
            System.err.println("probe: commands failed: " + e);
        }
        producer.shutdown();
        System.exit(0);
    }

    /**
     * The address the name server lists as broker id 0 for the topic, or "none". The producer's implementation object is
     * deprecated API, but the client offers no other way to read a route without the admin tools.
     */
    @SuppressWarnings("deprecation")
    private static String leader(final DefaultMQProducer producer, final String topic) {
        try {
            final TopicRouteData route = producer.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl()
                    .getTopicRouteInfoFromNameServer(topic, SEND_TIMEOUT_MILLIS);
            for (BrokerData broker : route.getBrokerDatas()) {
                final String address = broker.getBrokerAddrs().get(0L);
                if (address != null) {
                    return address;
                }
            }
        } catch (final Exception e) {
            System.err.println("probe: no route: " + e.getMessage());
        }
        return "none";
    }

    private static synchronized void say(final String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static Map<String, String> options(final String[] args) {
        final Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                System.err.println("usage: FailoverProbe --namesrv HOST:PORT[;HOST:PORT...] [--topic T] [--size 1024]");
                System.exit(1);
            }
            out.put(args[i].substring(2), args[++i]);
        }
        return out;
    }
}
