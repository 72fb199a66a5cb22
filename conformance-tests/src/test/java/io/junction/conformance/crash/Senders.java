package io.junction.conformance.crash;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import io.junction.conformance.support.BrokerProcess;
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
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * The four producers of the load, one per protocol, each counting a send as acknowledged exactly when its protocol
 * says the broker has it: a Remoting sync send's SEND_OK, an MQTT PUBACK without an error code, a JMS persistent
 * {@code send()} returning (Qpid JMS waits for the broker's accepted disposition), an HTTP 2xx.
 */
final class Senders {
    /** Property naming the message on JMS (the body carries the id as well). */
    static final String JMS_ID_PROPERTY = "crashId";
    /** One MQTT message in this many is published at QoS 2, the others at QoS 1. */
    static final int MQTT_QOS2_EVERY = 4;

    private Senders() {
    }

    /**
     * RocketMQ Remoting: sync sends with no client-side retry, so one acknowledged send is one stored message.
     * {@code createTopic} creates the topic first (with 4 queues), as the first round does.
     */
    @SuppressWarnings("deprecation") // the client's createTopic: deprecated for the admin tool, simplest here
    static Sender remoting(final BrokerProcess broker, final String topic, final int round, final boolean createTopic)
            throws MQClientException {
        final DefaultMQProducer producer = remotingProducer("crash-producer", CrashBroker.nameServer(broker),
                "crash-producer-" + round);
        if (createTopic) {
            try {
                producer.createTopic("TBW102", topic, 4, Map.of());
            } catch (final MQClientException e) {
                producer.shutdown();
                throw e;
            }
        }
        return remoting(producer, topic);
    }

    /**
     * A started Remoting producer with no client-side retry; its send time-out is generous: a send that times out
     * while the broker lives fails the run (only a kill may fail sends), and after a kill the closed connection fails
     * the send at once anyway. {@code nameServers} may name several, separated by {@code ;}.
     */
    static DefaultMQProducer remotingProducer(final String group, final String nameServers, final String instance)
            throws MQClientException {
        final DefaultMQProducer producer = new DefaultMQProducer(group);
        producer.setNamesrvAddr(nameServers);
        producer.setInstanceName(instance);
        producer.setSendMsgTimeout(10_000);
        producer.setRetryTimesWhenSendFailed(0);
        producer.start();
        return producer;
    }

    /** Sync sends of a started Remoting producer, the message id as key; acknowledged by SEND_OK. */
    static Sender remoting(final DefaultMQProducer producer, final String topic) {
        return new Sender() {
            @Override
            public boolean send(final Ledger.Outgoing message) throws Exception {
                final Message m = new Message(topic, message.body());
                m.setKeys(message.id());
                final SendResult result = producer.send(m);
                return result.getSendStatus() == SendStatus.SEND_OK;
            }

            @Override
            public void close() {
                producer.shutdown();
            }
        };
    }

    /**
     * MQTT 5 publishes from a clean session (the publisher keeps nothing across rounds): QoS 1, and every
     * {@value #MQTT_QOS2_EVERY}th message QoS 2, acknowledged by its PUBREC (from then on the broker owns the message;
     * the blocking client returns there and completes the PUBREL/PUBCOMP exchange by itself).
     */
    static Sender mqtt(final BrokerProcess broker, final String topic, final int round) {
        return mqtt(CrashBroker.mqttPort(broker), topic, "crash-publisher-" + round, Senders::mqttQos);
    }

    /** MQTT 5 publishes from a clean session at the QoS {@code qos} gives; acknowledged by a PUBACK/PUBREC. */
    static Sender mqtt(final int port, final String topic, final String clientId,
                       final Function<Ledger.Outgoing, MqttQos> qos) {
        final Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier(clientId)
                .serverHost("127.0.0.1").serverPort(port).buildBlocking();
        client.connectWith().cleanStart(true).send();
        return new Sender() {
            @Override
            public boolean send(final Ledger.Outgoing message) {
                final Mqtt5PublishResult result = client.publishWith().topic(topic).qos(qos.apply(message))
                        .payload(message.body()).send();
                if (result.getError().isPresent()) {
                    return false;
                }
                if (result instanceof Mqtt5PublishResult.Mqtt5Qos1Result qos1) {
                    return !qos1.getPubAck().getReasonCode().isError();
                }
                return result instanceof Mqtt5PublishResult.Mqtt5Qos2Result qos2
                        && !qos2.getPubRec().getReasonCode().isError();
            }

            @Override
            public void close() {
                try {
                    client.disconnect();
                } catch (final RuntimeException e) {
                    // the broker is gone; nothing to tell it
                }
            }
        };
    }

    /** The QoS an MQTT message of the load is published with. */
    static MqttQos mqttQos(final Ledger.Outgoing message) {
        return message.sequence() % MQTT_QOS2_EVERY == 0 ? MqttQos.EXACTLY_ONCE : MqttQos.AT_LEAST_ONCE;
    }

    /** AMQP 1.0 through Qpid JMS: persistent BytesMessages to a queue, each send waiting for its disposition. */
    static Sender jms(final BrokerProcess broker, final String queue) throws JMSException {
        return jms(CrashBroker.amqpUri(broker) + "?jms.forceSyncSend=true&jms.closeTimeout=2000"
                + "&jms.connectTimeout=10000", queue);
    }

    /** Persistent BytesMessages through Qpid JMS at {@code uri} (its options included) to {@code queue}. */
    static Sender jms(final String uri, final String queue) throws JMSException {
        final Connection connection = new JmsConnectionFactory(uri).createConnection();
        try {
            final Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageProducer producer = session.createProducer(session.createQueue(queue));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            return new Sender() {
                @Override
                public boolean send(final Ledger.Outgoing message) throws JMSException {
                    final BytesMessage m = session.createBytesMessage();
                    m.writeBytes(message.body());
                    m.setStringProperty(JMS_ID_PROPERTY, message.id());
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

    /** CloudEvents over HTTP: one binary-mode event per POST to the broker's HTTP base of the moment. */
    static Sender cloudEvents(final BrokerProcess broker, final HttpClient http, final String topic) {
        return cloudEvents(broker::httpBase, http, topic);
    }

    /** CloudEvents over HTTP: one binary-mode event per POST to {@code base}; acknowledged by a 2xx. */
    static Sender cloudEvents(final Supplier<String> base, final HttpClient http, final String topic) {
        final CloudEventsPoster poster = new CloudEventsPoster(http, topic);
        return new Sender() {
            @Override
            public boolean send(final Ledger.Outgoing message) throws Exception {
                return poster.post(base.get(), message);
            }

            @Override
            public void close() {
                // the HTTP client is shared
            }
        };
    }

    /** Posts binary-mode CloudEvents to a topic: the id as {@code ce-id}, the body as the event data. */
    static final class CloudEventsPoster {
        private final HttpClient http;
        private final String topic;

        CloudEventsPoster(final HttpClient http, final String topic) {
            this.http = http;
            this.topic = topic;
        }

        /** Whether the broker answered 2xx (it stored the event). */
        boolean post(final BrokerProcess broker, final Ledger.Outgoing message) throws Exception {
            return post(broker.httpBase(), message);
        }

        /** Whether the broker at {@code base} answered 2xx (it stored the event). */
        boolean post(final String base, final Ledger.Outgoing message) throws Exception {
            final HttpResponse<Void> response = http.send(HttpRequest.newBuilder(
                            URI.create(base + "/topics/" + topic))
                    .timeout(Duration.ofSeconds(10))
                    .header("ce-specversion", "1.0").header("ce-id", message.id())
                    .header("ce-source", "/crash-test").header("ce-type", "io.junction.crash")
                    .header("content-type", "application/octet-stream")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(message.body())).build(),
                    HttpResponse.BodyHandlers.discarding());
            return response.statusCode() / 100 == 2;
        }
    }
}
