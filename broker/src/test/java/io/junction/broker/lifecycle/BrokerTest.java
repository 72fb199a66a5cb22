package io.junction.broker.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.junction.broker.config.BrokerConfig;
import io.junction.broker.config.ConfigException;
import io.junction.broker.config.ConfigKeys;
import io.junction.broker.config.ConfigLoader;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.message.Message;
import io.junction.spi.BrokerContext;
import io.junction.spi.Endpoint;
import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.config.InvalidValueException;
import io.junction.spi.http.HttpRoute;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole broker in-process, with the real store and front-ends written for the test. */
class BrokerTest {

    private static final String ORDERS_IN = "message_type=\"Normal\",protocol=\"fake\",topic=\"orders\"";

    @TempDir
    Path dataDir;

    private final HttpClient client = HttpClient.newHttpClient();

    @Test
    void shouldStartFrontEndsWithAContextAndReportThemInHealth() throws Exception {
        final RecordingFrontEnd fake = new RecordingFrontEnd("fake", null);
        final Broker broker = Broker.start(config(List.of(fake), Map.of("metrics.lag-interval-ms", "50")),
                List.of(fake));
        try {
            final String http = broker.endpoints().get(broker.endpoints().size() - 1).address();
            assertThat(broker.endpoints()).extracting(Endpoint::name).containsExactly("fake", "http");

            final HttpResponse<String> health = get(http + "/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"fake\":\"127.0.0.1:1\"").contains("\"http\":\"" + http + "\"");

            // The front-end's route is served by the shared listener, and its send shows up in the metrics.
            assertThat(get(http + "/fake/x").body()).isEqualTo("fake");
            final String metrics = get(http + "/metrics").body();
            assertThat(metrics)
                    .contains("junction_messages_in_total{topic=\"orders\"} 1.0")
                    .containsPattern("junction_bytes_in_total\\{topic=\"orders\"} [1-9]")
                    .contains("junction_messages_out_total")
                    .contains("junction_bytes_out_total")
                    .contains("junction_append_latency_seconds_count 1")
                    .contains("junction_store_disk_used_bytes")
                    .contains("junction_connections{protocol=\"fake\"} 0.0")
                    .contains("junction_connections{protocol=\"http\"}");
            assertThat(metrics)
                    .contains("rocketmq_messages_in_total{" + ORDERS_IN + "} 1")
                    .contains("rocketmq_throughput_in_total{" + ORDERS_IN + "} 5");
            // The consumer gauges are computed off the scrape; the first computation may still be on its way.
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(get(http + "/metrics").body())
                    .containsPattern("rocketmq_consumer_lag_messages\\{consumer_group=\"billing\",topic=\"orders\"} "
                            + "[01]\\.0")
                    .contains("rocketmq_consumer_ready_messages{consumer_group=\"billing\",topic=\"orders\"}"));
            assertThat(dataDir.resolve("abort")).exists();
        } finally {
            assertThat(broker.stop()).isTrue();
        }
        assertThat(fake.stops).hasValue(1);
        assertThat(dataDir.resolve("abort")).doesNotExist();
    }

    @Test
    void shouldNotStartADisabledFrontEnd() throws Exception {
        final RecordingFrontEnd off = new RecordingFrontEnd("off", null);
        final Broker broker = Broker.start(config(List.of(off), Map.of("off.enabled", "false")), List.of(off));
        try {
            assertThat(off.starts).hasValue(0);
            assertThat(broker.endpoints()).extracting(Endpoint::name).containsExactly("http");
        } finally {
            broker.stop();
        }
        assertThat(off.stops).hasValue(0);
    }

    @Test
    void shouldCloseEverythingInReverseWhenAFrontEndFailsToStart() throws Exception {
        final RecordingFrontEnd good = new RecordingFrontEnd("good", null);
        final RecordingFrontEnd broken = new RecordingFrontEnd("broken",
                new IllegalStateException("cannot listen on 127.0.0.1:1: boom"));
        final int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }

        assertThatThrownBy(() -> Broker.start(
                config(List.of(good, broken), Map.of("http.port", Integer.toString(port))), List.of(good, broken)))
                .isInstanceOf(BrokerStartException.class)
                .hasMessage("broken: cannot listen on 127.0.0.1:1: boom");

        assertThat(good.stops).hasValue(1);
        assertThat(broken.stops).hasValue(1);
        assertThat(dataDir.resolve("abort")).doesNotExist(); // the store closed cleanly
        try (ServerSocket again = new ServerSocket(port)) { // the HTTP listener let go of its port
            assertThat(again.getLocalPort()).isEqualTo(port);
        }
        try (MessageStore store = MessageStore.open(StoreConfig.builder(dataDir).segmentSize(1 << 20)
                .maxMessageSize(1 << 16).build())) { // and of its lock
            assertThat(store.stats().recoveredFromCrash()).isFalse();
        }
    }

    @Test
    void shouldReportAFrontEndsInvalidSettingsAsAConfigurationError() throws Exception {
        final RecordingFrontEnd picky = new RecordingFrontEnd("picky", new InvalidValueException(
                "invalid value for picky.min: '5' is above picky.max (4)"));

        assertThatThrownBy(() -> Broker.start(config(List.of(picky), Map.of()), List.of(picky)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("invalid value for picky.min: '5' is above picky.max (4)");

        assertThat(picky.stops).hasValue(1);
        assertThat(dataDir.resolve("abort")).doesNotExist(); // the store closed cleanly
    }

    @Test
    void shouldReportAnUnusableDataDirectoryAndLeaveNothingRunning() throws Exception {
        final Path file = Files.writeString(dataDir.resolve("a-file"), "x");
        final BrokerConfig config = new ConfigLoader(ConfigKeys.broker())
                .load(null, file.resolve("data"), Map.of("http.port", "0", "store.segment-size", "1m",
                        "store.max-message-size", "64k"));

        assertThatThrownBy(() -> Broker.start(config, List.of()))
                .isInstanceOf(BrokerStartException.class)
                .hasMessageContaining(file.resolve("data").toString());
    }

    private BrokerConfig config(final List<ProtocolFrontEnd> frontEnds, final Map<String, String> extra)
            throws Exception {
        final Map<String, String> settings = new HashMap<>(Map.of(
                "http.port", "0", "broker.bind-address", "127.0.0.1",
                "store.segment-size", "1m", "store.max-message-size", "64k"));
        settings.putAll(extra);
        return new ConfigLoader(ConfigKeys.withFrontEnds(frontEnds)).load(null, dataDir, settings);
    }

    private HttpResponse<String> get(final String url) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Registers a route and sends one message on start; fails on start with {@code failure} when given one. */
    private static final class RecordingFrontEnd implements ProtocolFrontEnd {
        private final String name;
        private final RuntimeException failure;
        final AtomicInteger starts = new AtomicInteger();
        final AtomicInteger stops = new AtomicInteger();
        private HttpRoute route;

        RecordingFrontEnd(final String name, final RuntimeException failure) {
            this.name = name;
            this.failure = failure;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public CompletableFuture<List<Endpoint>> start(final BrokerContext context) {
            starts.incrementAndGet();
            if (failure != null) {
                return CompletableFuture.failedFuture(failure);
            }
            assertThat(context.config().prefix()).isEqualTo(name);
            assertThat(context.advertisedHost()).isEqualTo("127.0.0.1");
            assertThat(context.connections().protocol()).isEqualTo(name);
            route = context.httpRoutes().register("/" + name,
                    exchange -> exchange.respond(HttpResponseStatus.OK, "text/plain", name));
            return context.messaging()
                    .send(Message.builder("orders").body("hello".getBytes(StandardCharsets.UTF_8)).build())
                    .thenApply(sent -> {
                        // A group no configuration names, known from its committed offset alone (Remoting's way).
                        context.messaging().commitOffset("billing", "orders", 0, 0);
                        return List.of(Endpoint.tcp(name, context.advertisedHost(), 1));
                    });
        }

        @Override
        public CompletableFuture<Void> stop() {
            stops.incrementAndGet();
            if (route != null) {
                route.close();
            }
            return CompletableFuture.completedFuture(null);
        }
    }
}
