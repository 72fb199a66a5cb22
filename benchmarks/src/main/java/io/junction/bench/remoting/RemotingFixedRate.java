package io.junction.bench.remoting;

import io.junction.bench.measure.FixedRateDriver;
import io.junction.bench.measure.FixedRateReport;
import io.junction.bench.measure.OpenLoopLatency;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Fixed-rate (open-loop) Remoting load with the real {@code rocketmq-client}: {@code --threads} sender threads share
 * one {@code DefaultMQProducer} and send 1 KiB bodies synchronously on the {@link FixedRateDriver}'s schedule of
 * {@code --rate} per second, while a push consumer of a new group (the client's defaults: long-polling pulls) receives
 * them. Each body starts with its intended send time, so send-ack latency (until {@code send} returns) and end-to-end
 * latency (until the listener gets it) are both measured from that time in this process. A send that starts late
 * because every sender thread was still waiting for the broker is charged for the wait.
 *
 * <pre>
 * java -cp benchmarks/target/classes:ROCKETMQ_CLASSPATH:HdrHistogram.jar io.junction.bench.remoting.RemotingFixedRate \
 *      --namesrv 127.0.0.1:9876 --rate 5000 [--label junction] [--threads 32] [--warmup 10] [--duration 30] \
 *      [--size 1024] [--queues 8] [--broker-pids PID,PID]
 * </pre>
 * Prints one {@link FixedRateReport} line; exit status 0 when every send succeeded and arrived, 2 otherwise.
 */
public final class RemotingFixedRate {
    private RemotingFixedRate() {
    }

    public static void main(final String[] args) throws Exception {
        final Map<String, String> o = LoadOptions.parse(args, "RemotingFixedRate --namesrv HOST:PORT --rate N "
                + "[--label NAME] [--threads 32] [--warmup 10] [--duration 30] [--size 1024] [--queues 8] "
                + "[--broker-pids PID,PID]");
        final String nameServer = o.getOrDefault("namesrv", "127.0.0.1:9876");
        final String label = o.getOrDefault("label", "broker");
        final double rate = Double.parseDouble(o.getOrDefault("rate", "1000"));
        final int threads = Integer.parseInt(o.getOrDefault("threads", "32"));
        final int warmup = Integer.parseInt(o.getOrDefault("warmup", "10"));
        final int duration = Integer.parseInt(o.getOrDefault("duration", "30"));
        final int size = Math.max(Long.BYTES, Integer.parseInt(o.getOrDefault("size", "1024")));
        final int queues = Integer.parseInt(o.getOrDefault("queues", "8"));
        final long[] brokerPids = o.containsKey("broker-pids")
                ? Arrays.stream(o.get("broker-pids").split(",")).mapToLong(Long::parseLong).toArray() : new long[0];

        final String run = label + "-" + ProcessHandle.current().pid() + "-" + Long.toString(System.nanoTime(), 36);
        final String topic = "rate-" + run;
        final FixedRateDriver driver = new FixedRateDriver(rate, warmup, duration, threads, brokerPids);
        final OpenLoopLatency latency = driver.latency();

        final DefaultMQProducer producer = LoadProducer.start(nameServer, "rate-producer-" + run);
        final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("rate-consumer-" + run);
        final FixedRateReport report;
        final boolean drained;
        try {
            LoadProducer.createTopic(producer, topic, queues);
            consumer.setNamesrvAddr(nameServer);
            consumer.setInstanceName("rate-consumer-" + run);
            consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            consumer.subscribe(topic, "*");
            consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                for (MessageExt m : msgs) {
                    final byte[] body = m.getBody();
                    if (body != null && body.length >= Long.BYTES) { // not the 1-byte message that made the route
                        latency.delivered(ByteBuffer.wrap(body).getLong());
                    }
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            consumer.start();
            final Random random = new Random(42);
            final byte[] filler = new byte[size];
            random.nextBytes(filler);
            final ThreadLocal<byte[]> bodies = ThreadLocal.withInitial(filler::clone);
            driver.run((slot, intended) -> {
                final byte[] body = bodies.get();
                ByteBuffer.wrap(body).putLong(0, intended);
                final SendResult result = producer.send(new Message(topic, body));
                if (result.getSendStatus() == SendStatus.SEND_OK) {
                    latency.acked(intended);
                } else {
                    latency.failed(intended);
                }
            });
            drained = FixedRateDriver.await(() -> latency.acked() + latency.failed() >= latency.sent()
                    && latency.delivered() >= latency.acked(), 120);
            report = driver.report(1);
        } finally {
            consumer.shutdown();
            producer.shutdown();
        }
        System.out.println(report.line(label) + " threads=" + threads + " size=" + size + " queues=" + queues
                + " drained=" + drained);
        System.exit(report.missing() > 0 || report.failed() > 0 ? 2 : 0);
    }
}
