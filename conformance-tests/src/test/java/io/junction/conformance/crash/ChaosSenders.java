package io.junction.conformance.crash;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * The cluster chaos test's producers, one connection each, made from addresses that stay valid across restarts (a
 * killed node comes back on the same ports). Each counts a send as acknowledged exactly when its protocol says the
 * broker has it, and none retries by itself: a failed send is not sent again, so a message stored twice would show.
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
        final DefaultMQProducer producer = new DefaultMQProducer("chaos-producer");
        producer.setNamesrvAddr(nameServers);
        producer.setInstanceName(instance + "-" + System.nanoTime());
        producer.setSendMsgTimeout(10_000);
        producer.setRetryTimesWhenSendFailed(0);
        producer.start();
        return new Sender() {
            @Override
            public boolean send(final Ledger.Outgoing message) throws Exception {
                final Message m = new Message(topic, message.body());
                m.setKeys(message.id());
                return producer.send(m).getSendStatus() == SendStatus.SEND_OK;
            }

            @Override
            public void close() {
                producer.shutdown();
            }
        };
    }

    /** MQTT 5 QoS 1 publishes from a clean session; acknowledged by a PUBACK without an error code. */
    static Sender mqtt(final int port, final String topic, final String clientId) {
        final Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier(clientId)
                .serverHost("127.0.0.1").serverPort(port).buildBlocking();
        client.connectWith().cleanStart(true).send();
        return new Sender() {
            @Override
            public boolean send(final Ledger.Outgoing message) {
                final Mqtt5PublishResult result = client.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE)
                        .payload(message.body()).send();
                return result.getError().isEmpty()
                        && result instanceof Mqtt5PublishResult.Mqtt5Qos1Result qos1
                        && !qos1.getPubAck().getReasonCode().isError();
            }

            @Override
            public void close() {
                try {
                    client.disconnect();
                } catch (final RuntimeException e) {
                    // the node is gone; nothing to tell it
                }
            }
        };
    }

    /** AMQP 1.0 through Qpid JMS (no failover transport): persistent sends to a queue, each awaiting its disposition. */
    static Sender jms(final int port, final String queue) throws JMSException {
        final Connection connection = new JmsConnectionFactory("amqp://127.0.0.1:" + port
                + "?jms.forceSyncSend=true&jms.closeTimeout=2000&jms.connectTimeout=5000&jms.sendTimeout=15000")
                .createConnection();
        try {
            final Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageProducer producer = session.createProducer(session.createQueue(queue));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            return new Sender() {
                @Override
                public boolean send(final Ledger.Outgoing message) throws JMSException {
                    final BytesMessage m = session.createBytesMessage();
                    m.writeBytes(message.body());
                    m.setStringProperty(Senders.JMS_ID_PROPERTY, message.id());
                    producer.send(m);
                    return true;
                }

                @Override
                public void close() {
                    JmsQueueConsumer.closeQuietly(connection);
                }
            };
        } catch (final JMSException | RuntimeException e) {
            JmsQueueConsumer.closeQuietly(connection);
            throw e;
        }
    }

    /** CloudEvents over HTTP: one binary-mode event per POST to {@code base}; acknowledged by a 2xx. */
    static Sender cloudEvents(final HttpClient http, final String base, final String topic) {
        return new Sender() {
            @Override
            public boolean send(final Ledger.Outgoing message) throws Exception {
                final HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create(base + "/topics/"
                                + topic))
                        .timeout(Duration.ofSeconds(10))
                        .header("ce-specversion", "1.0").header("ce-id", message.id())
                        .header("ce-source", "/chaos-test").header("ce-type", "io.junction.chaos")
                        .header("content-type", "application/octet-stream")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(message.body())).build(),
                        HttpResponse.BodyHandlers.discarding());
                return response.statusCode() / 100 == 2;
            }

            @Override
            public void close() {
                // the HTTP client is shared by all producers
            }
        };
    }
}
