package io.junction.conformance.crash;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAck;
import io.junction.conformance.support.BrokerProcess;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection of the persistent MQTT 5 session that lives across all kills: the same client id, clean start off
 * and a long session expiry, subscribed once, in the first round, at QoS 2 (so each message comes at the QoS it was
 * published with, 1 or 2). Every later connection must find the
 * session present, and the messages published while it was away (or in flight when the broker died) arrive on it.
 * Each publish is recorded in the ledger before the client acknowledges it (the client sends the PUBACK or PUBREC
 * when the callback returns), so a crash in between gives a duplicate, never a loss.
 */
final class MqttSession implements AutoCloseable {
    static final String CLIENT_ID = "crash-session";
    private static final long EXPIRY_SECONDS = 3600;
    private static final long TIMEOUT_SECONDS = 15;

    private final Mqtt5AsyncClient client;
    private final boolean sessionPresent;
    private final AtomicInteger deliveries;
    private final AtomicLong lastDeliveryNanos;

    private MqttSession(final Mqtt5AsyncClient client, final boolean sessionPresent, final AtomicInteger deliveries,
                        final AtomicLong lastDeliveryNanos) {
        this.client = client;
        this.sessionPresent = sessionPresent;
        this.deliveries = deliveries;
        this.lastDeliveryNanos = lastDeliveryNanos;
    }

    /** Connects (resuming the session) and subscribes when the broker does not know the session. */
    static MqttSession connect(final BrokerProcess broker, final String topic, final Ledger ledger,
                               final String name) throws Exception {
        final Mqtt5AsyncClient client = MqttClient.builder().useMqttVersion5().identifier(CLIENT_ID)
                .serverHost("127.0.0.1").serverPort(CrashBroker.mqttPort(broker)).buildAsync();
        final AtomicInteger deliveries = new AtomicInteger();
        final AtomicLong last = new AtomicLong(System.nanoTime());
        // Registered before connecting: the session's queued messages may come right after the CONNACK.
        client.publishes(MqttGlobalPublishFilter.ALL, p -> {
            ledger.delivered(p.getPayloadAsBytes(), name);
            deliveries.incrementAndGet();
            last.set(System.nanoTime());
        });
        final Mqtt5ConnAck connAck = client.connectWith().cleanStart(false).sessionExpiryInterval(EXPIRY_SECONDS)
                .send().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        final MqttSession session = new MqttSession(client, connAck.isSessionPresent(), deliveries, last);
        if (!connAck.isSessionPresent()) {
            try {
                client.subscribeWith().topicFilter(topic).qos(MqttQos.EXACTLY_ONCE).send()
                        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (final Exception e) {
                session.close();
                throw e;
            }
        }
        return session;
    }

    /** Whether the broker still had the session when this connection was made. */
    boolean sessionPresent() {
        return sessionPresent;
    }

    int deliveries() {
        return deliveries.get();
    }

    /** Whether nothing arrived for at least {@code millis}. */
    boolean quietFor(final long millis) {
        return System.nanoTime() - lastDeliveryNanos.get() >= TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** Disconnects, keeping the session (its expiry is long); after a kill the connection is already gone. */
    @Override
    public void close() {
        try {
            client.disconnect().get(2, TimeUnit.SECONDS);
        } catch (final Exception e) {
            // not connected any more: the broker was killed
        }
    }
}
