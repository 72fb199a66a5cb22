package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;
import org.junit.jupiter.api.Test;

/**
 * The RocketMQ 5 gRPC client (rocketmq-client-java 5.0.x) writes no message trace of its own; with trace on for a
 * topic the broker writes it: a send, a SimpleConsumer's receive and its ack show up as Pub, SubBefore and SubAfter
 * in the message's trace (the admin API decodes the packed trace messages the broker stored).
 */
@WithBroker(settings = "trace.topics=grpc-traced")
class GrpcMessageTraceIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldTraceAGrpcSendReceiveAndAck(final RunningBroker broker) throws Exception {
        final String id;
        try (GrpcClients clients = new GrpcClients(broker)) {
            final Producer producer = clients.producer("grpc-traced");
            final SendReceipt sent = producer.send(PROVIDER.newMessageBuilder().setTopic("grpc-traced")
                    .setKeys("order-42").setBody(utf8("traced over gRPC")).build());
            id = sent.getMessageId().toString();
            final SimpleConsumer consumer = clients.simpleConsumer("grpc-traced-g", "grpc-traced");
            final List<MessageView> got = new ArrayList<>();
            final long end = System.nanoTime() + WAIT.toNanos();
            while (got.isEmpty() && System.nanoTime() < end) {
                got.addAll(consumer.receive(1, Duration.ofSeconds(30)));
            }
            assertThat(got).singleElement().satisfies(m -> assertThat(m.getMessageId().toString()).isEqualTo(id));
            consumer.ack(got.get(0));
        }

        final HttpClient http = HttpClient.newHttpClient();
        final URI trace = URI.create(broker.httpBase() + "/admin/messages/trace?topic=grpc-traced&id=" + id);
        await().atMost(WAIT).untilAsserted(() -> {
            final HttpResponse<String> r = http.send(HttpRequest.newBuilder(trace).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            final Map<String, JsonNode> byType = new HashMap<>();
            final List<String> types = new ArrayList<>();
            JSON.readTree(r.body()).path("events").forEach(e -> {
                types.add(e.path("type").asText());
                byType.put(e.path("type").asText(), e);
            });
            assertThat(types).containsExactlyInAnyOrder("Pub", "SubBefore", "SubAfter");
            assertThat(byType.get("Pub").path("topic").asText()).isEqualTo("grpc-traced");
            assertThat(byType.get("Pub").path("success").asBoolean()).isTrue();
            assertThat(byType.get("SubBefore").path("group").asText()).isEqualTo("grpc-traced-g");
            assertThat(byType.get("SubAfter").path("success").asBoolean()).isTrue();
        });
    }
}
