package io.junction.conformance.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import io.junction.conformance.support.RunningBroker;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.FilterExpressionType;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * The clients of {@link ElasticScalingIT}'s load, one connector per protocol and direction, all on one topic. Each
 * producer counts a send as acknowledged exactly when its protocol says the broker has it, and none retries by
 * itself (a failed send is not sent again, so a message read twice was redelivered or stored twice). Consumers that
 * see the whole topic keep only their stream's bodies (the stream's name, then {@code -}).
 */
final class ElasticClients {
    private static final ClientServiceProvider GRPC = ClientServiceProvider.loadService();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CE_TYPE = "io.junction.elastic";
    private static final int TIMEOUT_MS = 10_000;

    private final String topic;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    ElasticClients(final String topic) {
        this.topic = topic;
    }

    /** RocketMQ Remoting sync sends to queue {@code queueId} only (ordered), no client-side retry. */
    LoadStream.Connector<LoadStream.Sender> remoting(final int queueId) {
        return proxy -> {
            final DefaultMQProducer producer = new DefaultMQProducer("elastic-producer-" + queueId);
            producer.setNamesrvAddr(proxy.nameServer());
            producer.setInstanceName("elastic-" + queueId + "-" + System.nanoTime());
            producer.setSendMsgTimeout(TIMEOUT_MS);
            producer.setMqClientApiTimeout(TIMEOUT_MS);
            producer.setRetryTimesWhenSendFailed(0);
            producer.start();
            return new LoadStream.Sender() {
                @Override
                public boolean send(final String body) throws Exception {
                    return producer.send(new Message(topic, body.getBytes(StandardCharsets.UTF_8)),
                            (mqs, msg, arg) -> mqs.stream().filter(q -> q.getQueueId() == queueId).findFirst()
                                    .orElseThrow(), null).getSendStatus() == SendStatus.SEND_OK;
                }

                @Override
                public void close() {
                    producer.shutdown();
                }
            };
        };
    }

    /** MQTT 5 QoS 1 publishes to {@code <topic>/mqtt} from a clean session; acknowledged by a PUBACK without error. */
    LoadStream.Connector<LoadStream.Sender> mqttPublisher() {
        return proxy -> {
            final Mqtt5BlockingClient client = mqtt(proxy, "elastic-pub-" + System.nanoTime());
            return new LoadStream.Sender() {
                @Override
                public boolean send(final String body) {
                    final Mqtt5PublishResult result = client.publishWith().topic(topic + "/mqtt")
                            .qos(MqttQos.AT_LEAST_ONCE).payload(body.getBytes(StandardCharsets.UTF_8)).send();
                    return result.getError().isEmpty() && result instanceof Mqtt5PublishResult.Mqtt5Qos1Result qos1
                            && !qos1.getPubAck().getReasonCode().isError();
                }

                @Override
                public void close() {
                    disconnect(client);
                }
            };
        };
    }

    /** An MQTT 5 QoS 1 subscription to {@code <topic>/mqtt} from a clean session. */
    LoadStream.Connector<LoadStream.Receiver> mqttSubscriber() {
        return proxy -> {
            final Mqtt5BlockingClient client = mqtt(proxy, "elastic-sub-" + System.nanoTime());
            final Mqtt5BlockingClient.Mqtt5Publishes incoming = client.publishes(MqttGlobalPublishFilter.ALL);
            client.subscribeWith().topicFilter(topic + "/mqtt").qos(MqttQos.AT_LEAST_ONCE).send();
            return new LoadStream.Receiver() {
                @Override
                public List<String> receive() throws Exception {
                    final List<String> bodies = new ArrayList<>();
                    Optional<Mqtt5Publish> p = incoming.receive(1, TimeUnit.SECONDS);
                    while (p.isPresent()) {
                        bodies.add(new String(p.get().getPayloadAsBytes(), StandardCharsets.UTF_8));
                        p = incoming.receiveNow();
                    }
                    if (bodies.isEmpty() && !client.getState().isConnected()) {
                        throw new IOException("the MQTT subscriber lost its connection");
                    }
                    return bodies;
                }

                @Override
                public void close() {
                    incoming.close();
                    disconnect(client);
                }
            };
        };
    }

    /** Qpid JMS (AMQP 1.0): persistent BytesMessages to the queue named as the topic, each awaiting its disposition. */
    LoadStream.Connector<LoadStream.Sender> jmsProducer() {
        return proxy -> {
            final Connection connection = jms(proxy);
            try {
                final Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                final MessageProducer producer = session.createProducer(session.createQueue(topic));
                producer.setDeliveryMode(DeliveryMode.PERSISTENT);
                return new LoadStream.Sender() {
                    @Override
                    public boolean send(final String body) throws JMSException {
                        final BytesMessage m = session.createBytesMessage();
                        m.writeBytes(body.getBytes(StandardCharsets.UTF_8));
                        producer.send(m);
                        return true;
                    }

                    @Override
                    public void close() {
                        closeQuietly(connection);
                    }
                };
            } catch (JMSException | RuntimeException e) {
                closeQuietly(connection);
                throw e;
            }
        };
    }

    /** A Qpid JMS consumer of the queue named as the topic (auto-acknowledge); keeps the {@code jms-} bodies. */
    LoadStream.Connector<LoadStream.Receiver> jmsConsumer() {
        return proxy -> {
            final Connection connection = jms(proxy);
            try {
                connection.start();
                final Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                final MessageConsumer consumer = session.createConsumer(session.createQueue(topic));
                return new LoadStream.Receiver() {
                    @Override
                    public List<String> receive() throws JMSException {
                        final List<String> bodies = new ArrayList<>();
                        for (jakarta.jms.Message m = consumer.receive(1000); m != null; m = consumer.receiveNoWait()) {
                            final String body = text(m);
                            if (body.startsWith("jms-")) {
                                bodies.add(body);
                            }
                        }
                        return bodies;
                    }

                    @Override
                    public void close() {
                        closeQuietly(connection);
                    }
                };
            } catch (JMSException | RuntimeException e) {
                closeQuietly(connection);
                throw e;
            }
        };
    }

    /** A RocketMQ 5 gRPC producer (tag {@code grpc}, one attempt per send). */
    LoadStream.Connector<LoadStream.Sender> grpcProducer() {
        return proxy -> {
            final Producer producer = GRPC.newProducerBuilder().setClientConfiguration(grpc(proxy))
                    .setTopics(topic).setMaxAttempts(1).build();
            return new LoadStream.Sender() {
                @Override
                public boolean send(final String body) throws Exception {
                    return producer.send(GRPC.newMessageBuilder().setTopic(topic).setTag("grpc")
                            .setBody(body.getBytes(StandardCharsets.UTF_8)).build()).getMessageId() != null;
                }

                @Override
                public void close() {
                    closeQuietly(producer);
                }
            };
        };
    }

    /** A RocketMQ 5 gRPC simple consumer (POP) of tag {@code grpc}; acks what it receives. */
    LoadStream.Connector<LoadStream.Receiver> grpcConsumer() {
        return proxy -> {
            final SimpleConsumer consumer = GRPC.newSimpleConsumerBuilder().setClientConfiguration(grpc(proxy))
                    .setConsumerGroup("elastic-grpc").setAwaitDuration(Duration.ofSeconds(1))
                    .setSubscriptionExpressions(Map.of(topic, new FilterExpression("grpc", FilterExpressionType.TAG)))
                    .build();
            return new LoadStream.Receiver() {
                @Override
                public List<String> receive() throws Exception {
                    final List<String> bodies = new ArrayList<>();
                    for (MessageView view : consumer.receive(32, Duration.ofSeconds(15))) {
                        bodies.add(text(view.getBody()));
                        consumer.ack(view);
                    }
                    return bodies;
                }

                @Override
                public void close() {
                    closeQuietly(consumer);
                }
            };
        };
    }

    /** CloudEvents over HTTP: one binary-mode event per POST; acknowledged by a 2xx. */
    LoadStream.Connector<LoadStream.Sender> cloudEventsPoster() {
        return proxy -> new LoadStream.Sender() {
            @Override
            public boolean send(final String body) throws Exception {
                return http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase() + "/topics/" + topic))
                        .timeout(Duration.ofMillis(TIMEOUT_MS)).header("ce-specversion", "1.0")
                        .header("ce-id", body).header("ce-source", "/elastic").header("ce-type", CE_TYPE)
                        .header("content-type", "text/plain").POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(), HttpResponse.BodyHandlers.discarding()).statusCode() / 100 == 2;
            }

            @Override
            public void close() {
                // the HTTP client is shared
            }
        };
    }

    /**
     * Creates the pull subscription {@code name} (the events of this load's type; what is not acked within
     * {@code visibilitySeconds} comes back) through {@code proxy}.
     */
    void createSubscription(final RunningBroker proxy, final String name, final int visibilitySeconds)
            throws Exception {
        final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase()
                        + "/subscriptions/" + name)).timeout(Duration.ofMillis(TIMEOUT_MS))
                .header("content-type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(
                        "{\"topic\":\"" + topic + "\",\"filter\":{\"attributes\":{\"type\":\"" + CE_TYPE
                                + "\"}},\"visibilitySeconds\":" + visibilitySeconds + "}")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new AssertionError("creating subscription " + name + ": " + r.statusCode() + " " + r.body());
        }
    }

    /** Receives (up to 32, waiting up to 1 s) and acks the events of pull subscription {@code name}. */
    LoadStream.Connector<LoadStream.Receiver> cloudEventsPull(final String name) {
        return proxy -> new LoadStream.Receiver() {
            @Override
            public List<String> receive() throws Exception {
                final String base = proxy.httpBase() + "/subscriptions/" + name;
                final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base
                                + "/receive?max=32&waitSeconds=1")).timeout(Duration.ofMillis(TIMEOUT_MS))
                        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    throw new IOException("receive: " + r.statusCode() + " " + r.body());
                }
                final List<String> bodies = new ArrayList<>();
                final StringBuilder receipts = new StringBuilder();
                for (JsonNode event : JSON.readTree(r.body())) {
                    bodies.add(event.get("data").asText());
                    receipts.append(receipts.length() == 0 ? "" : ",").append('"')
                            .append(event.get("receipt").asText()).append('"');
                }
                if (!bodies.isEmpty()) {
                    // An ack that fails leaves the events to come back after their visibility: received again then.
                    http.send(HttpRequest.newBuilder(URI.create(base + "/ack"))
                            .timeout(Duration.ofMillis(TIMEOUT_MS)).header("content-type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"receipts\":[" + receipts + "]}")).build(),
                            HttpResponse.BodyHandlers.discarding());
                }
                return bodies;
            }

            @Override
            public void close() {
                // the HTTP client is shared
            }
        };
    }

    private static Mqtt5BlockingClient mqtt(final RunningBroker proxy, final String clientId) {
        final Mqtt5BlockingClient client = MqttClient.builder().useMqttVersion5().identifier(clientId)
                .serverHost("127.0.0.1").serverPort(proxy.mqttPort()).buildBlocking();
        client.connectWith().cleanStart(true).send();
        return client;
    }

    private static void disconnect(final Mqtt5BlockingClient client) {
        try {
            client.disconnect();
        } catch (RuntimeException e) {
            // its proxy is gone: nothing to tell it
        }
    }

    private static Connection jms(final RunningBroker proxy) throws JMSException {
        return new JmsConnectionFactory("amqp://127.0.0.1:" + proxy.amqpPort() + "?jms.forceSyncSend=true"
                + "&jms.closeTimeout=2000&jms.connectTimeout=5000&jms.sendTimeout=" + TIMEOUT_MS
                + "&jms.prefetchPolicy.all=16").createConnection();
    }

    private static void closeQuietly(final Connection connection) {
        try {
            connection.close();
        } catch (JMSException | RuntimeException e) {
            // its proxy is gone: nothing to tell it
        }
    }

    private static void closeQuietly(final AutoCloseable client) {
        try {
            client.close();
        } catch (Exception e) {
            // its proxy is gone: nothing to tell it
        }
    }

    private static String text(final jakarta.jms.Message m) throws JMSException {
        if (m instanceof BytesMessage bytes) {
            final byte[] body = new byte[(int) bytes.getBodyLength()];
            bytes.readBytes(body);
            return new String(body, StandardCharsets.UTF_8);
        }
        return m instanceof TextMessage t && t.getText() != null ? t.getText() : "";
    }

    private static String text(final ByteBuffer body) {
        return StandardCharsets.UTF_8.decode(body.duplicate()).toString();
    }

    private static ClientConfiguration grpc(final RunningBroker proxy) {
        return ClientConfiguration.newBuilder().setEndpoints(proxy.grpcEndpoint()).enableSsl(false)
                .setRequestTimeout(Duration.ofMillis(TIMEOUT_MS)).build();
    }
}
