package io.junction.conformance.crash;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import jakarta.jms.JMSException;
import java.net.http.HttpClient;
import org.apache.rocketmq.client.exception.MQClientException;

/**
 * The cluster tests' producers ({@link Senders} made from addresses that stay valid across restarts: a stopped or
 * killed node comes back on the same ports). None retries by itself: a failed send is not sent again, so a message
 * stored twice would show.
 */
final class ChaosSenders {
    private ChaosSenders() {
    }

    /**
     * RocketMQ Remoting sync sends; the client knows every node as a name server ({@code nameServers} separated by
     * {@code ;}) and takes its route from one of them.
     */
    static Sender remoting(final String nameServers, final String topic, final String instance)
            throws MQClientException {
        return Senders.remoting(Senders.remotingProducer("chaos-producer", nameServers,
                instance + "-" + System.nanoTime()), topic);
    }

    /** MQTT 5 QoS 1 publishes from a clean session; acknowledged by a PUBACK without an error code. */
    static Sender mqtt(final int port, final String topic, final String clientId) {
        return Senders.mqtt(port, topic, clientId, m -> MqttQos.AT_LEAST_ONCE);
    }

    /** AMQP 1.0 through Qpid JMS (no failover transport): persistent sends to a queue, each awaiting its disposition. */
    static Sender jms(final int port, final String queue) throws JMSException {
        return Senders.jms("amqp://127.0.0.1:" + port
                + "?jms.forceSyncSend=true&jms.closeTimeout=2000&jms.connectTimeout=5000&jms.sendTimeout=15000", queue);
    }

    /** CloudEvents over HTTP: one binary-mode event per POST to {@code base}; acknowledged by a 2xx. */
    static Sender cloudEvents(final HttpClient http, final String base, final String topic) {
        return Senders.cloudEvents(() -> base, http, topic);
    }
}
