package io.junction.conformance.mqtt;

import static io.junction.conformance.mqtt.Clients.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.sun.net.httpserver.HttpServer;
import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * CloudEvents across protocols through the core: an event POSTed over HTTP reaches an MQTT subscriber and a
 * RocketMQ Remoting consumer with its data and attributes; a Remoting producer's message reaches an HTTP push sink as
 * a binary-mode CloudEvent.
 */
@WithBroker(settings = {"mqtt.connect-timeout-ms=1000", "mqtt.max-packet-size=64k"})
class CloudEventsCrossProtocolIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static RunningBroker broker;

    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    private static String nameServer() {
        return broker.nameServer();
    }

    private static HttpResponse<String> postEvent(final String topic, final String id, final String data)
            throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(broker.httpBase() + "/topics/" + topic))
                .header("ce-specversion", "1.0").header("ce-id", id).header("ce-source", "/cross")
                .header("ce-type", "cross.event").header("content-type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(data)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldDeliverAPostedEventToMqttSubscribersWithItsAttributes() throws Exception {
        final Mqtt5BlockingClient sub = Clients.v5(broker, "ce-sub");
        try (var in = Clients.publishes(sub)) {
            sub.subscribeWith().topicFilter("weather/#").qos(MqttQos.AT_LEAST_ONCE).send();
            assertThat(postEvent("weather", "w-1", "sunny").statusCode()).isEqualTo(202);
            final Mqtt5Publish p = Clients.receive(in, 1).get(0);
            assertThat(p.getTopic().toString()).isEqualTo("weather");
            assertThat(Clients.text(p)).isEqualTo("sunny");
            assertThat(p.getUserProperties().asList().stream().map(u -> u.getName() + "=" + u.getValue()).toList())
                    .contains("CE_id=w-1", "CE_type=cross.event", "CE_source=/cross");
        } finally {
            sub.disconnect();
        }
    }

    @Test
    void shouldDeliverAPostedEventToARemotingConsumer() throws Exception {
        assertThat(postEvent("billing", "b-1", "invoice").statusCode()).isEqualTo(202);
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("ce-cross-consumer");
        consumer.setNamesrvAddr(nameServer());
        consumer.setInstanceName("ce-cross-consumer");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe("billing", "*");
        consumer.start();
        try {
            final List<MessageExt> got = new ArrayList<>();
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (got.isEmpty() && System.nanoTime() < end) {
                got.addAll(consumer.poll(500));
            }
            assertThat(got).hasSize(1);
            final MessageExt m = got.get(0);
            assertThat(new String(m.getBody(), StandardCharsets.UTF_8)).isEqualTo("invoice");
            assertThat(m.getUserProperty("CE_id")).isEqualTo("b-1");
            assertThat(m.getUserProperty("CE_type")).isEqualTo("cross.event");
        } finally {
            consumer.shutdown();
        }
    }

    @Test
    void shouldPushARemotingMessageToAnHttpSinkAsACloudEvent() throws Exception {
        final BlockingQueue<Map<String, List<String>>> headers = new ArrayBlockingQueue<>(8);
        final BlockingQueue<String> bodies = new ArrayBlockingQueue<>(8);
        final HttpServer sink = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        sink.createContext("/events", exchange -> {
            headers.add(exchange.getRequestHeaders());
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        sink.start();
        final DefaultMQProducer producer = new DefaultMQProducer("ce-cross-producer");
        producer.setNamesrvAddr(nameServer());
        producer.setInstanceName("ce-cross-producer");
        producer.start();
        try {
            final String subscription = "{\"topic\":\"audit\",\"sink\":\"http://127.0.0.1:" + sink.getAddress().getPort()
                    + "/events\"}";
            final HttpResponse<String> created = HTTP.send(HttpRequest.newBuilder(
                    URI.create(broker.httpBase() + "/subscriptions/audit-sink"))
                    .header("content-type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(subscription))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).isIn(200, 201);
            final Message m = new Message("audit", "login", bytes("user 42 logged in"));
            m.putUserProperty("region", "eu");
            assertThat(producer.send(m).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
            final String body = bodies.poll(20, TimeUnit.SECONDS);
            assertThat(body).isEqualTo("user 42 logged in");
            final Map<String, List<String>> h = headers.poll(1, TimeUnit.SECONDS);
            assertThat(h.get("Ce-specversion")).containsExactly("1.0");
            assertThat(h.get("Ce-source").get(0)).endsWith("/topics/audit");
            assertThat(h.get("Ce-id")).isNotEmpty();
            assertThat(h.get("Ce-region")).containsExactly("eu");
        } finally {
            producer.shutdown();
            sink.stop(0);
        }
    }
}
