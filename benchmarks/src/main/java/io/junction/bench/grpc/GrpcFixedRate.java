package io.junction.bench.grpc;

import io.junction.bench.measure.FixedRateDriver;
import io.junction.bench.measure.FixedRateReport;
import io.junction.bench.measure.OpenLoopLatency;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.producer.Producer;

/**
 * Fixed-rate (open-loop) rocketmq-client-java 5.x load against any gRPC endpoint, the same for Junction and RocketMQ's
 * proxy: the {@link FixedRateDriver}'s sender threads share one Producer and each does a blocking {@code send} of a
 * 1 KiB body per slot (the send returns once the server stored it), while one PushConsumer takes the messages and
 * acks them. Each body starts with its slot's intended send time; send-ack and end-to-end latencies are measured from
 * it (coordinated omission corrected).
 */
public final class GrpcFixedRate {
    /** Offered rate, warm-up and measured seconds, sender threads, body size. */
    public record Settings(double rate, int warmupSeconds, int durationSeconds, int threads, int bodyBytes) {
    }

    private static final ClientServiceProvider PROVIDER = ClientServiceProvider.loadService();
    /** How long the senders' last answers and the consumer's last deliveries may take after the run. */
    private static final int DRAIN_SECONDS = 120;

    private GrpcFixedRate() {
    }

    /** One run against {@code endpoints}; {@code serverPids} are the processes whose CPU counts as the server's. */
    public static FixedRateReport run(final String endpoints, final String topic, final String group,
                                      final Settings s, final long[] serverPids) throws Exception {
        final ClientConfiguration config = ClientConfiguration.newBuilder().setEndpoints(endpoints).enableSsl(false)
                .setRequestTimeout(Duration.ofSeconds(10)).build();
        final FixedRateDriver driver = new FixedRateDriver(s.rate(), s.warmupSeconds(), s.durationSeconds(),
                s.threads(), serverPids);
        final OpenLoopLatency latency = driver.latency();
        // Subscribed before the first send, so it gets every message.
        final PushConsumer consumer = PROVIDER.newPushConsumerBuilder().setClientConfiguration(config)
                .setConsumerGroup(group).setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL))
                .setMessageListener(view -> {
                    final ByteBuffer body = view.getBody();
                    latency.delivered(body.getLong(body.position()));
                    return ConsumeResult.SUCCESS;
                }).build();
        try (consumer; Producer producer = PROVIDER.newProducerBuilder().setClientConfiguration(config)
                .setTopics(topic).build()) {
            driver.run((slot, intended) -> {
                final byte[] body = new byte[s.bodyBytes()];
                ByteBuffer.wrap(body).putLong(intended);
                producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setBody(body).build());
                latency.acked(intended);
            });
            FixedRateDriver.await(() -> latency.acked() + latency.failed() >= latency.sent()
                    && latency.delivered() >= latency.acked(), DRAIN_SECONDS);
            return driver.report(1);
        }
    }
}
