package io.junction.conformance.grpc;

import io.junction.conformance.support.RunningBroker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientConfigurationBuilder;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.StaticSessionCredentialsProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.FilterExpressionType;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;

/** The 5.x Java client set up against a test broker (plaintext), and small helpers. */
final class GrpcClients implements AutoCloseable {
    static final ClientServiceProvider PROVIDER = ClientServiceProvider.loadService();
    private static final AtomicInteger SEQ = new AtomicInteger();

    static {
        // keep the client's own log files out of the user's home
        System.setProperty("rocketmq.log.root", System.getProperty("java.io.tmpdir") + "/junction-grpc-client-logs");
    }

    private final RunningBroker broker;
    private final boolean ssl;
    private final List<AutoCloseable> open = new ArrayList<>();

    /** Clients over plaintext. */
    GrpcClients(final RunningBroker broker) {
        this(broker, false);
    }

    /** Clients over TLS (the client's default, trusting any certificate) or plaintext. */
    GrpcClients(final RunningBroker broker, final boolean ssl) {
        this.broker = broker;
        this.ssl = ssl;
    }

    static String unique(final String prefix) {
        return prefix + "-" + SEQ.incrementAndGet() + "-" + System.nanoTime() % 100000;
    }

    ClientConfiguration configuration() {
        return ClientConfiguration.newBuilder()
                .setEndpoints("127.0.0.1:" + broker.setting("grpc.port"))
                .enableSsl(ssl)
                .setRequestTimeout(Duration.ofSeconds(5))
                .build();
    }

    /** A client of {@code namespace} ("" for none) signing with {@code accessKey}/{@code secret} (null: unsigned). */
    ClientConfiguration configuration(final String namespace, final String accessKey, final String secret) {
        final ClientConfigurationBuilder b = ClientConfiguration.newBuilder()
                .setEndpoints("127.0.0.1:" + broker.setting("grpc.port"))
                .enableSsl(ssl)
                .setRequestTimeout(Duration.ofSeconds(5))
                .setNamespace(namespace);
        if (accessKey != null) {
            b.setCredentialProvider(new StaticSessionCredentialsProvider(accessKey, secret));
        }
        return b.build();
    }

    <T extends AutoCloseable> T track(final T closeable) {
        open.add(closeable);
        return closeable;
    }

    Producer producer(final String... topics) throws ClientException {
        return producer(configuration(), topics);
    }

    Producer producer(final ClientConfiguration configuration, final String... topics) throws ClientException {
        return track(PROVIDER.newProducerBuilder().setClientConfiguration(configuration).setTopics(topics).build());
    }

    SimpleConsumer simpleConsumer(final ClientConfiguration configuration, final String group, final String topic)
            throws ClientException {
        return track(PROVIDER.newSimpleConsumerBuilder().setClientConfiguration(configuration)
                .setConsumerGroup(group)
                .setAwaitDuration(Duration.ofSeconds(2))
                .setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL))
                .build());
    }

    SimpleConsumer simpleConsumer(final String group, final String topic, final FilterExpression filter)
            throws ClientException {
        return track(PROVIDER.newSimpleConsumerBuilder().setClientConfiguration(configuration())
                .setConsumerGroup(group)
                .setAwaitDuration(Duration.ofSeconds(2))
                .setSubscriptionExpressions(Map.of(topic, filter))
                .build());
    }

    SimpleConsumer simpleConsumer(final String group, final String topic) throws ClientException {
        return simpleConsumer(group, topic, FilterExpression.SUB_ALL);
    }

    /** Receives until {@code count} messages arrived (acking each) or the deadline passes. */
    static List<MessageView> drain(final SimpleConsumer consumer, final int count, final Duration deadline)
            throws ClientException {
        final List<MessageView> got = new ArrayList<>();
        final long end = System.nanoTime() + deadline.toNanos();
        while (got.size() < count && System.nanoTime() < end) {
            for (MessageView v : consumer.receive(32, Duration.ofSeconds(30))) {
                got.add(v);
                consumer.ack(v);
            }
        }
        return got;
    }

    static FilterExpression tag(final String expression) {
        return new FilterExpression(expression, FilterExpressionType.TAG);
    }

    static String body(final MessageView view) {
        final ByteBuffer b = view.getBody().duplicate();
        final byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        // Side by side: each client is a client of its own (own channels, own threads), and a push consumer's close
        // waits for its parked receive (up to the long-polling timeout) and then its consumption threads; a test's
        // clients one after another add those waits up. A close must never hang a test run: 30 s for all.
        final List<AutoCloseable> closing = new ArrayList<>(open);
        open.clear();
        final List<Thread> closers = new ArrayList<>();
        for (AutoCloseable client : closing) {
            final Thread closer = new Thread(() -> {
                try {
                    client.close();
                } catch (Exception ignored) {
                    // closing a client that failed to start
                }
            }, "grpc-clients-close");
            closer.setDaemon(true);
            closer.start();
            closers.add(closer);
        }
        final long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (Thread closer : closers) {
            try {
                closer.join(Math.max(1, Duration.ofNanos(end - System.nanoTime()).toMillis()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (closers.stream().anyMatch(Thread::isAlive)) {
            throw new AssertionError("rocketmq clients did not close within 30 s");
        }
    }
}
