package io.junction.conformance.crash;

import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;

/**
 * POP messages in flight across a leader kill in a cluster: a RocketMQ 5 gRPC simple consumer (POP) given one node
 * receives a few probe messages without acking them just before the leader is killed. Its pop checkpoints are in the
 * replicated log, so the new leader (which rebuilds POP from its log) must keep them invisible until their invisible
 * time has passed and then hand them out again. The consumer is the same object throughout: its route lists every
 * node, so it keeps receiving whichever nodes die.
 */
final class GrpcPopProbe implements AutoCloseable {
    static final String STREAM = "P";
    private static final int MESSAGES = 8;

    static {
        // keep the gRPC client's own log files out of the user's home
        System.setProperty("rocketmq.log.root", System.getProperty("java.io.tmpdir") + "/junction-grpc-client-logs");
    }

    private final Ledger ledger;
    private final String topic;
    private final Duration invisible;
    private final List<String> sent = new ArrayList<>();
    /** Probe id to the time its first receive answered (nanoTime). */
    private final Map<String, Long> poppedAt = new ConcurrentHashMap<>();
    /** Probe id to how long after {@link #poppedAt} it came back, in ms. */
    private final Map<String, Long> backAfterMillis = new ConcurrentHashMap<>();
    private final List<String> early = Collections.synchronizedList(new ArrayList<>());
    private SimpleConsumer consumer;
    private volatile int receives;
    private volatile int receiveFailures;
    private volatile int received;
    private volatile String lastFailure = "none";

    GrpcPopProbe(final Ledger ledger, final String topic, final Duration invisible) {
        this.ledger = ledger;
        this.topic = topic;
        this.invisible = invisible;
    }

    /**
     * Sends the probe messages with a Remoting producer of {@code nameServer}, subscribes through
     * {@code grpcEndpoint} and receives them all without acking.
     */
    void sendAndPop(final String grpcEndpoint, final String nameServer, final int node, final Random random)
            throws Exception {
        try (Sender producer = ChaosSenders.remoting(nameServer, topic, "chaos-pop-probe")) {
            for (int i = 0; i < MESSAGES; i++) {
                final Ledger.Outgoing m = ledger.attempt(STREAM, node, random);
                if (!producer.send(m)) {
                    throw new AssertionError("probe message " + m.id() + " not acknowledged");
                }
                ledger.acknowledged(m);
                sent.add(m.id());
            }
        }
        // After the sends: the first send created the topic on the leader (a follower creating it for the consumer's
        // route would forward the change, which can take longer than a request timeout on this busy machine). A new
        // gRPC group starts at offset 0 of a queue that still holds its first message, so it gets them all.
        consumer = ClientServiceProvider.loadService().newSimpleConsumerBuilder()
                .setClientConfiguration(ClientConfiguration.newBuilder().setEndpoints(grpcEndpoint).enableSsl(false)
                        .setRequestTimeout(Duration.ofSeconds(10)).build())
                .setConsumerGroup("chaos-pop-probe")
                .setAwaitDuration(Duration.ofSeconds(1))
                .setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL))
                .build();
        await("probe messages popped").atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            for (MessageView v : consumer.receive(MESSAGES, invisible)) {
                final byte[] body = bytes(v.getBody());
                ledger.delivered(body, "pop-probe");
                poppedAt.putIfAbsent(Ledger.idOf(body), System.nanoTime());
            }
            return poppedAt.keySet().containsAll(sent);
        });
    }

    /** Receives and acks until every probe message came back or {@code stop} is set; on its own thread. */
    void watch(final AtomicBoolean stop) {
        while (!stop.get() && !allBack()) {
            final List<MessageView> views;
            try {
                views = consumer.receive(MESSAGES, invisible);
                receives++;
                received += views.size();
            } catch (final ClientException | RuntimeException e) {
                // a node died under the receive, or an election: the client moves on by itself
                receiveFailures++;
                lastFailure = e.toString();
                pause();
                continue;
            }
            final long now = System.nanoTime();
            for (MessageView v : views) {
                final byte[] body = bytes(v.getBody());
                final String id = Ledger.idOf(body);
                ledger.delivered(body, "pop-probe-again");
                final Long popped = poppedAt.get(id);
                if (popped != null && !backAfterMillis.containsKey(id)) {
                    final long after = TimeUnit.NANOSECONDS.toMillis(now - popped);
                    backAfterMillis.put(id, after);
                    if (after < invisible.toMillis() / 2) {
                        early.add(id + " after " + after + " ms");
                    }
                }
                try {
                    consumer.ack(v);
                } catch (final ClientException e) {
                    // it comes back once more and is acked then
                }
            }
        }
    }

    boolean allBack() {
        return !poppedAt.isEmpty() && backAfterMillis.keySet().containsAll(poppedAt.keySet());
    }

    /** Probe messages handed out again before half their invisible time. */
    List<String> early() {
        return List.copyOf(early);
    }

    String describe() {
        return "POP probe (invisible " + invisible.toSeconds() + " s, " + poppedAt.size() + " popped before a kill): "
                + "back after ms " + new TreeMap<>(backAfterMillis) + "; watch: " + receives + " receives ("
                + received + " messages), " + receiveFailures + " failed, last failure " + lastFailure;
    }

    @Override
    public void close() throws Exception {
        if (consumer != null) {
            consumer.close();
        }
    }

    private static byte[] bytes(final ByteBuffer body) {
        final byte[] b = new byte[body.remaining()];
        body.duplicate().get(b);
        return b;
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(100);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
