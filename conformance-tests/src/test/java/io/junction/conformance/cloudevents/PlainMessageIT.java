package io.junction.conformance.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.junction.conformance.support.RunningBroker;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A message that did not arrive as a CloudEvent is pulled as one (id, source, default type, data, content type). */
class PlainMessageIT {
    @TempDir
    Path tmp;

    @Test
    void plainMessageIsRenderedAsACloudEvent() throws Exception {
        final Path data = tmp.resolve("data");
        final String subscription = "{\"name\":\"plain-sub\",\"topic\":\"plain\"}";
        final String uniqueId;
        // A subscription (its group) and a plain message, written through the store's public API before start.
        try (MessageStore store = MessageStore.open(StoreConfig.builder(data).build())) {
            store.topics().createOrUpdate(TopicConfig.of("plain", 2)).get();
            store.groups().createOrUpdate(new GroupConfig("plain-sub", 16, false, false,
                    Map.of("cloudevents.subscription", subscription))).get();
            uniqueId = store.send(Message.builder("plain").body("hello".getBytes(StandardCharsets.UTF_8))
                    .tag("TagA").property(MessageProperties.CONTENT_TYPE, "text/plain")
                    .property("region", "eu").build()).get().uniqueId();
        }
        try (RunningBroker broker = RunningBroker.builder().dataDir(data)
                .set("http-cloudevents.default-type", "com.example.plain").start()) {
            final HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(broker.httpBase() + "/subscriptions/plain-sub/receive?max=5&waitSeconds=5"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            final JsonNode events = new ObjectMapper().readTree(r.body());
            assertThat(events).hasSize(1);
            final JsonNode e = events.get(0);
            assertThat(e.get("id").asText()).isEqualTo(uniqueId);
            assertThat(e.get("source").asText()).isEqualTo(broker.httpBase() + "/topics/plain");
            assertThat(e.get("type").asText()).isEqualTo("com.example.plain");
            assertThat(e.get("datacontenttype").asText()).isEqualTo("text/plain");
            assertThat(e.get("data").asText()).isEqualTo("hello");
            assertThat(e.get("region").asText()).isEqualTo("eu");
            assertThat(e.has("time")).isTrue();
        }
    }
}
