package io.junction.broker.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.junction.broker.http.HttpListener;
import io.junction.broker.http.HttpRouter;
import io.junction.broker.metrics.BrokerMetrics;
import io.junction.broker.netty.NettyTransport;
import io.junction.cluster.proxy.groups.ScalingConflict;
import io.junction.cluster.proxy.groups.TopicPlacement;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.spi.metrics.ConnectionCounter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code POST /admin/topics/{t}/scale} answers, over the broker's real HTTP listener and a real store: the
 * placement on success, 409 when the scaling lost the placement race every time ({@link ScalingConflict}, which
 * {@code ScalingConflictTest} provokes on real store groups), 400 for a refused target or none, 404 for an unknown
 * topic. The scaling itself is the proxy's (tested in the cluster module); here it is the answer
 * the proxy gives, handed over as a function.
 */
class TopicScaleAnswersTest {
    private static final String TOPIC = "orders";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<String> asked = new ArrayList<>();
    private CompletableFuture<TopicPlacement> answer;
    private NettyTransport transport;
    private BrokerMetrics metrics;
    private MessageStore store;
    private TrafficHistory traffic;
    private HttpListener listener;
    private String base;

    @BeforeEach
    void start() throws Exception {
        transport = NettyTransport.create(1);
        metrics = BrokerMetrics.create();
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(1 << 20).queueFileEntries(1024)
                .indexFileEntries(4096).maxMessageSize(256 * 1024).diskFullRatio(1.01).maxDiskUsedRatio(1.01).build());
        store.topics().createOrUpdate(TopicConfig.of(TOPIC, 2)).get(10, TimeUnit.SECONDS);
        traffic = new TrafficHistory(metrics.registry());
        final HttpRouter router = new HttpRouter();
        router.register(TopicsApi.PATH, new TopicsApi(store, traffic, (topic, queues, groups) -> {
            asked.add(topic + " " + queues + " " + groups);
            return answer;
        }));
        listener = HttpListener.bind(transport, "127.0.0.1", 0, "127.0.0.1", router,
                new HttpListener.Limits(64 * 1024, 5_000), new ConnectionCounter(metrics.registry(), "http"));
        base = listener.endpoint().address();
    }

    @AfterEach
    void stop() throws Exception {
        listener.close();
        traffic.close();
        store.close();
        transport.close();
        metrics.close();
    }

    private HttpResponse<String> post(final String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + path))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldAnswerTheNewPlacementWithEachLogicalQueuesSegments() throws Exception {
        answer = CompletableFuture.completedFuture(TopicPlacement.parse(TOPIC, "g1:0:0:0:7,g2:0:7:0:-;g2"));

        final HttpResponse<String> r = post(TopicsApi.PATH + "/" + TOPIC + "/scale?queues=2&groups=g2");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(asked).containsExactly(TOPIC + " 2 [g2]");
        final JsonNode body = JSON.readTree(r.body());
        assertThat(body.path("placement").asText()).isEqualTo("g1:0:0:0:7,g2:0:7:0:-;g2");
        final JsonNode seam = body.path("queues").get(0);
        assertThat(seam.get(0).path("sealedEnd").asLong()).isEqualTo(7);
        assertThat(seam.get(1).path("group").asText()).isEqualTo("g2");
        assertThat(seam.get(1).path("logicalStart").asLong()).isEqualTo(7);
        assertThat(seam.get(1).path("sealedEnd").isNull()).isTrue();
    }

    @Test
    void shouldAnswer409WhenThePlacementChangedUnderEveryAttempt() throws Exception {
        answer = CompletableFuture.failedFuture(new ScalingConflict("the placement of topic " + TOPIC
                + " changed under each of 8 attempts"));

        final HttpResponse<String> r = post(TopicsApi.PATH + "/" + TOPIC + "/scale?groups=g2,g3");

        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(r.body()).contains("changed under each of 8 attempts");
        assertThat(asked).containsExactly(TOPIC + " 2 [g2, g3]");
    }

    @Test
    void shouldAnswer400ForARefusedTargetOrNoTargetAnd404ForAnUnknownTopic() throws Exception {
        answer = CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_ARGUMENT,
                "store group g2 is retired"));

        final HttpResponse<String> retired = post(TopicsApi.PATH + "/" + TOPIC + "/scale?groups=g2");
        assertThat(retired.statusCode()).isEqualTo(400);
        assertThat(retired.body()).contains("g2 is retired");

        assertThat(post(TopicsApi.PATH + "/" + TOPIC + "/scale").statusCode()).as("no groups named").isEqualTo(400);
        assertThat(post(TopicsApi.PATH + "/nosuch/scale?groups=g2").statusCode()).isEqualTo(404);
        assertThat(asked).hasSize(1);
    }
}
