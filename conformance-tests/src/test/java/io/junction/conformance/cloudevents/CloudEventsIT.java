package io.junction.conformance.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.http.HttpMessageFactory;
import io.cloudevents.jackson.JsonFormat;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithBroker(settings = {
        "http-cloudevents.max-event-size=64k",
        "http-cloudevents.max-batch-events=50",
        "http.read-timeout-ms=3000"})
class CloudEventsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final AtomicInteger SEQ = new AtomicInteger();

    static RunningBroker broker;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    // ---------------------------------------------------------------- helpers

    static String unique(final String prefix) {
        return prefix + "-" + SEQ.incrementAndGet() + "-" + System.nanoTime() % 100000;
    }

    static HttpResponse<String> send(final HttpRequest.Builder b) {
        try {
            return HTTP.send(b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (final IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static HttpRequest.Builder request(final String path) {
        return HttpRequest.newBuilder(URI.create(broker.httpBase() + path));
    }

    static HttpResponse<String> postBinary(final String topic, final String id, final String contentType,
                                           final String body, final String... extraHeaders) {
        final HttpRequest.Builder b = request("/topics/" + topic)
                .header("ce-specversion", "1.0").header("ce-id", id).header("ce-source", "/conformance")
                .header("ce-type", "com.example.test").header("content-type", contentType);
        for (int i = 0; i < extraHeaders.length; i += 2) {
            b.header(extraHeaders[i], extraHeaders[i + 1]);
        }
        return send(b.POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    static HttpResponse<String> post(final String path, final String contentType, final String body) {
        return send(request(path).header("content-type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    static HttpResponse<String> putSubscription(final String name, final String json) {
        return send(request("/subscriptions/" + name).header("content-type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)));
    }

    static JsonNode receive(final String name, final int max, final int waitSeconds) throws IOException {
        final HttpResponse<String> r = post("/subscriptions/" + name + "/receive?max=" + max + "&waitSeconds="
                + waitSeconds, "application/json", "");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    static JsonNode json(final HttpResponse<String> r) throws IOException {
        return JSON.readTree(r.body());
    }

    /** A pull subscription on a fresh topic. */
    static String[] pullSubscription(final String extra) {
        final String topic = unique("t");
        final String name = unique("sub");
        final HttpResponse<String> r = putSubscription(name, "{\"topic\":\"" + topic + "\"" + extra + "}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return new String[] {topic, name};
    }

    // ---------------------------------------------------------------- ingress

    @Test
    void binaryModeEventIsStoredAndPulledBackWithItsAttributes() throws IOException {
        final String[] s = pullSubscription("");
        final HttpResponse<String> r = postBinary(s[0], "b-1", "text/plain; charset=utf-8", "hello",
                "ce-subject", "caf%C3%A9", "ce-time", "2026-01-02T03:04:05Z", "ce-myext", "v1");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(json(r).get("messageIds")).hasSize(1);

        final JsonNode events = receive(s[1], 10, 5);
        assertThat(events).hasSize(1);
        final JsonNode e = events.get(0);
        assertThat(e.get("specversion").asText()).isEqualTo("1.0");
        assertThat(e.get("id").asText()).isEqualTo("b-1");
        assertThat(e.get("source").asText()).isEqualTo("/conformance");
        assertThat(e.get("type").asText()).isEqualTo("com.example.test");
        assertThat(e.get("subject").asText()).isEqualTo("café");
        assertThat(OffsetDateTime.parse(e.get("time").asText()))
                .isEqualTo(OffsetDateTime.parse("2026-01-02T03:04:05Z"));
        assertThat(e.get("myext").asText()).isEqualTo("v1");
        assertThat(e.get("datacontenttype").asText()).isEqualTo("text/plain; charset=utf-8");
        assertThat(e.get("data").asText()).isEqualTo("hello");
        assertThat(e.get("receipt").asText()).isNotEmpty();
        // The SDK reads the same document.
        final CloudEvent parsed = new JsonFormat().deserialize(e.toString().getBytes(StandardCharsets.UTF_8));
        assertThat(parsed.getData().toBytes()).isEqualTo("hello".getBytes(StandardCharsets.UTF_8));

        final HttpResponse<String> ack = post("/subscriptions/" + s[1] + "/ack", "application/json",
                "{\"receipts\":[\"" + e.get("receipt").asText() + "\"]}");
        assertThat(ack.statusCode()).isEqualTo(200);
        assertThat(json(ack).get("acked").asInt()).isEqualTo(1);
        assertThat(receive(s[1], 10, 0)).isEmpty();
    }

    @Test
    void sdkEncodedStructuredAndBinaryEventsAreAccepted() throws IOException {
        final String[] s = pullSubscription("");
        final CloudEvent event = CloudEventBuilder.v1().withId("sdk-1").withSource(URI.create("urn:sdk"))
                .withType("com.example.sdk").withDataContentType("application/json")
                .withExtension("count", 7).withData("{\"k\":[1,2]}".getBytes(StandardCharsets.UTF_8)).build();
        for (final boolean structured : new boolean[] {true, false}) {
            final HttpRequest.Builder b = request("/topics/" + s[0]);
            final ByteArrayOutputStream body = new ByteArrayOutputStream();
            final var writer = HttpMessageFactory.createWriter(b::header, bytes -> body.writeBytes(bytes));
            final CloudEvent e = CloudEventBuilder.v1(event).withId("sdk-" + structured).build();
            if (structured) {
                writer.writeStructured(e, new JsonFormat());
            } else {
                writer.writeBinary(e);
            }
            final HttpResponse<String> r = send(b.POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        }
        final JsonNode events = receive(s[1], 10, 5);
        final List<JsonNode> all = new ArrayList<>();
        events.forEach(all::add);
        if (all.size() < 2) {
            receive(s[1], 10, 5).forEach(all::add);
        }
        assertThat(all).hasSize(2);
        for (final JsonNode e : all) {
            final CloudEvent back = new JsonFormat().deserialize(e.toString().getBytes(StandardCharsets.UTF_8));
            assertThat(back.getType()).isEqualTo("com.example.sdk");
            assertThat(back.getDataContentType()).isEqualTo("application/json");
            assertThat(JSON.readTree(back.getData().toBytes())).isEqualTo(JSON.readTree("{\"k\":[1,2]}"));
            assertThat(back.getExtension("count").toString()).isEqualTo("7");
        }
    }

    @Test
    void batchIsStoredWholeOrNotAtAll() throws IOException {
        final String[] s = pullSubscription("");
        final String ok = "{\"specversion\":\"1.0\",\"id\":\"%s\",\"source\":\"/b\",\"type\":\"t\",\"data\":{\"n\":1}}";
        final HttpResponse<String> good = post("/topics/" + s[0], "application/cloudevents-batch+json",
                "[" + String.format(ok, "1") + "," + String.format(ok, "2") + "," + String.format(ok, "3") + "]");
        assertThat(good.statusCode()).as(good.body()).isEqualTo(202);
        assertThat(json(good).get("messageIds")).hasSize(3);

        final HttpResponse<String> bad = post("/topics/" + s[0], "application/cloudevents-batch+json",
                "[" + String.format(ok, "4") + ",{\"specversion\":\"1.0\",\"id\":\"5\",\"source\":\"/b\","
                        + "\"type\":\"t\",\"time\":\"not-a-time\"}]");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.headers().firstValue("content-type")).hasValue("application/problem+json");
        assertThat(json(bad).get("attribute").asText()).isEqualTo("time");
        assertThat(json(bad).get("index").asInt()).isEqualTo(1);

        final List<String> ids = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            receive(s[1], 32, 1).forEach(e -> ids.add(e.get("id").asText()));
            return ids.size() >= 3;
        });
        assertThat(receive(s[1], 32, 1)).isEmpty();
        assertThat(ids).containsExactlyInAnyOrder("1", "2", "3");
    }

    @Test
    void badInputGetsAPreciseStatusAndStoresNothing() throws IOException {
        final String[] s = pullSubscription("");
        final String t = "/topics/" + s[0];
        final String structured = "application/cloudevents+json";
        record Case(String name, HttpResponse<String> response, int status, String attribute) {
        }
        final List<Case> cases = List.of(
                new Case("malformed JSON", post(t, structured, "{\"specversion\":"), 400, null),
                new Case("invalid specversion", post(t, structured,
                        "{\"specversion\":\"0.3\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\"}"), 400, "specversion"),
                new Case("bad source", post(t, structured,
                        "{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"a b\",\"type\":\"t\"}"), 400, "source"),
                new Case("bad time", post(t, structured,
                        "{\"specversion\":\"1.0\",\"id\":\"1\",\"source\":\"/s\",\"type\":\"t\",\"time\":\"2026-13-01\"}"),
                        400, "time"),
                new Case("missing type (binary)", send(request(t).header("ce-specversion", "1.0")
                        .header("ce-id", "1").header("ce-source", "/s")
                        .POST(HttpRequest.BodyPublishers.ofString("x"))), 400, "type"),
                new Case("binary bad specversion", send(request(t).header("ce-specversion", "2.0")
                        .header("ce-id", "1").header("ce-source", "/s").header("ce-type", "t")
                        .POST(HttpRequest.BodyPublishers.ofString("x"))), 400, "specversion"),
                new Case("unsupported format", post(t, "application/cloudevents+xml", "<e/>"), 415, null),
                new Case("not a CloudEvent", post(t, "text/plain", "hello"), 415, null),
                new Case("data over the limit", postBinary(s[0], "big", "text/plain", "x".repeat(70 * 1024)),
                        413, "data"),
                new Case("GET on a topic", send(request(t).GET()), 405, null));
        for (final Case c : cases) {
            assertThat(c.response().statusCode()).as(c.name() + ": " + c.response().body()).isEqualTo(c.status());
            final JsonNode problem = json(c.response());
            assertThat(problem.get("status").asInt()).as(c.name()).isEqualTo(c.status());
            if (c.attribute() != null) {
                assertThat(problem.get("attribute").asText()).as(c.name()).isEqualTo(c.attribute());
            }
        }
        assertThat(hugeHeaderStatus(s[0])).isIn(431, -1);
        assertThat(receive(s[1], 32, 1)).as("nothing stored").isEmpty();
        // The listener still serves others.
        assertThat(postBinary(s[0], "after", "text/plain", "ok").statusCode()).isEqualTo(202);
    }

    /** A 64 KiB header: 431 from the listener (or a closed connection, -1). */
    static int hugeHeaderStatus(final String topic) throws IOException {
        final int port = Integer.parseInt(broker.setting("http.port"));
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            final OutputStream out = socket.getOutputStream();
            out.write(("POST /topics/" + topic + " HTTP/1.1\r\nHost: x\r\nce-specversion: 1.0\r\nce-id: h\r\n"
                    + "ce-source: /s\r\nce-type: t\r\nce-huge: " + "x".repeat(64 * 1024)
                    + "\r\ncontent-length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            final InputStream in = socket.getInputStream();
            final byte[] head = in.readNBytes(12);
            if (head.length < 12) {
                return -1;
            }
            return Integer.parseInt(new String(head, 9, 3, StandardCharsets.US_ASCII));
        } catch (final java.net.SocketException e) {
            return -1;
        }
    }

    @Test
    void repeatedSourceAndIdIsStoredOnce() throws IOException {
        final String[] s = pullSubscription("");
        final HttpResponse<String> first = postBinary(s[0], "dup-1", "text/plain", "one");
        final HttpResponse<String> second = postBinary(s[0], "dup-1", "text/plain", "two");
        assertThat(second.statusCode()).isEqualTo(202);
        assertThat(json(second).get("events").get(0).get("duplicate").asBoolean()).isTrue();
        assertThat(json(second).get("messageIds").get(0)).isEqualTo(json(first).get("messageIds").get(0));
        final JsonNode events = receive(s[1], 10, 3);
        assertThat(events).hasSize(1);
        assertThat(events.get(0).get("data").asText()).isEqualTo("one");
        assertThat(receive(s[1], 10, 1)).isEmpty();
    }

    // ---------------------------------------------------------------- pull

    @Test
    void unackedEventComesBackAfterItsVisibility() throws IOException {
        final String[] s = pullSubscription(",\"visibilitySeconds\":1");
        postBinary(s[0], "redeliver-1", "text/plain", "again");
        final JsonNode first = receive(s[1], 1, 5);
        assertThat(first).hasSize(1);
        final List<JsonNode> again = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            receive(s[1], 1, 2).forEach(again::add);
            return !again.isEmpty();
        });
        assertThat(again.get(0).get("id").asText()).isEqualTo("redeliver-1");
        assertThat(again.get(0).get("receipt").asText()).isNotEqualTo(first.get(0).get("receipt").asText());
    }

    @Test
    void subscriptionsAreListedFilteredAndDeleted() throws IOException {
        final String[] s = pullSubscription(",\"filter\":{\"filters\":[{\"prefix\":{\"type\":\"com.keep.\"}}]}");
        send(request("/topics/" + s[0]).header("ce-specversion", "1.0").header("ce-id", "f1")
                .header("ce-source", "/f").header("ce-type", "com.drop.x")
                .POST(HttpRequest.BodyPublishers.ofString("")));
        send(request("/topics/" + s[0]).header("ce-specversion", "1.0").header("ce-id", "f2")
                .header("ce-source", "/f").header("ce-type", "com.keep.y")
                .POST(HttpRequest.BodyPublishers.ofString("")));
        final JsonNode events = receive(s[1], 10, 5);
        assertThat(events).hasSize(1);
        assertThat(events.get(0).get("id").asText()).isEqualTo("f2");

        final HttpResponse<String> one = send(request("/subscriptions/" + s[1]).GET());
        assertThat(one.statusCode()).isEqualTo(200);
        assertThat(json(one).get("topic").asText()).isEqualTo(s[0]);
        final HttpResponse<String> list = send(request("/subscriptions").GET());
        assertThat(list.body()).contains("\"name\":\"" + s[1] + "\"");

        final HttpResponse<String> bad = putSubscription(unique("bad"),
                "{\"topic\":\"x\",\"filter\":{\"nope\":{}}}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(json(bad).get("attribute").asText()).isEqualTo("filter");
        assertThat(putSubscription(unique("bad"), "{\"filter\":{}}").statusCode()).isEqualTo(400);

        assertThat(send(request("/subscriptions/" + s[1]).DELETE()).statusCode()).isEqualTo(204);
        assertThat(send(request("/subscriptions/" + s[1]).GET()).statusCode()).isEqualTo(404);
    }

    @Test
    void aNewSubscriptionGetsTheEventsStoredFromItsCreationOnAndAnUpdateKeepsItsPlace() throws IOException {
        final String topic = unique("t");
        assertThat(postBinary(topic, "history", "text/plain", "h").statusCode()).isEqualTo(202);
        final String name = unique("sub");
        assertThat(putSubscription(name, "{\"topic\":\"" + topic + "\"}").statusCode()).isEqualTo(201);
        assertThat(postBinary(topic, "first", "text/plain", "1").statusCode()).isEqualTo(202);
        // Changing the subscription does not move it: what it has not received yet stays for it.
        assertThat(putSubscription(name, "{\"topic\":\"" + topic + "\",\"visibilitySeconds\":20}").statusCode())
                .isEqualTo(200);
        assertThat(postBinary(topic, "second", "text/plain", "2").statusCode()).isEqualTo(202);
        final List<String> ids = new ArrayList<>();
        final long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (ids.size() < 2 && System.nanoTime() < end) {
            receive(name, 10, 2).forEach(e -> ids.add(e.get("id").asText()));
        }
        receive(name, 10, 1).forEach(e -> ids.add(e.get("id").asText()));
        assertThat(ids).containsExactlyInAnyOrder("first", "second");
    }

    // ---------------------------------------------------------------- push

    @Test
    void pushDeliversMatchingEventsInBinaryMode() throws IOException {
        try (SinkServer sink = new SinkServer(() -> 200, Map.of())) {
            final String topic = unique("t");
            final String name = unique("push");
            assertThat(putSubscription(name, "{\"topic\":\"" + topic + "\",\"sink\":\"" + sink.url()
                    + "\",\"filter\":{\"attributes\":{\"type\":\"com.example.test\"}}}").statusCode()).isEqualTo(201);
            postBinary(topic, "p-1", "application/json", "{\"x\":1}", "ce-region", "eu%20west");
            send(request("/topics/" + topic).header("ce-specversion", "1.0").header("ce-id", "p-2")
                    .header("ce-source", "/conformance").header("ce-type", "com.other")
                    .POST(HttpRequest.BodyPublishers.ofString("")));
            await().atMost(Duration.ofSeconds(20)).until(() -> !sink.received.isEmpty());
            final CloudEvent e = sink.received.get(0);
            assertThat(e.getId()).isEqualTo("p-1");
            // Sent percent-encoded as the HTTP binding says (the SDK's reader leaves the value encoded).
            assertThat(sink.headers.get(0)).containsEntry("ce-region", "eu%20west");
            assertThat(e.getDataContentType()).isEqualTo("application/json");
            assertThat(e.getData().toBytes()).isEqualTo("{\"x\":1}".getBytes(StandardCharsets.UTF_8));
            assertThat(sink.headers.get(0)).containsEntry("ce-id", "p-1");
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                    .until(() -> sink.requests.get() == 1);
            send(request("/subscriptions/" + name).DELETE());
        }
    }

    @Test
    void pushRetriesThenDeadLettersToTheDeadLetterSink() throws IOException {
        try (SinkServer failing = new SinkServer(() -> 503, Map.of("Retry-After", "0"));
             SinkServer dead = new SinkServer(() -> 202, Map.of())) {
            final String topic = unique("t");
            final String name = unique("push");
            assertThat(putSubscription(name, "{\"topic\":\"" + topic + "\",\"sink\":\"" + failing.url()
                    + "\",\"delivery\":{\"retries\":2,\"backoffMillis\":100,\"backoffPolicy\":\"linear\","
                    + "\"deadLetterSink\":\"" + dead.url() + "\",\"timeoutMillis\":2000}}").statusCode())
                    .isEqualTo(201);
            postBinary(topic, "dl-1", "text/plain", "doomed");
            await().atMost(Duration.ofSeconds(20)).until(() -> dead.received.size() == 1);
            assertThat(failing.requests.get()).isEqualTo(3);
            final CloudEvent e = dead.received.get(0);
            assertThat(e.getId()).isEqualTo("dl-1");
            assertThat(e.getExtension("knativeerrorcode")).isEqualTo("503");
            assertThat(e.getExtension("knativeerrordest")).isEqualTo(failing.url());
            send(request("/subscriptions/" + name).DELETE());
        }
    }

    @Test
    void pushDoesNotRetryA400AndFallsBackToTheGroupDeadLetterTopic() throws IOException {
        try (SinkServer rejecting = new SinkServer(() -> 400, Map.of())) {
            final String topic = unique("t");
            final String name = unique("push");
            assertThat(putSubscription(name, "{\"topic\":\"" + topic + "\",\"sink\":\"" + rejecting.url()
                    + "\",\"delivery\":{\"retries\":3,\"backoffMillis\":100}}").statusCode()).isEqualTo(201);
            postBinary(topic, "dlq-1", "text/plain", "bad");
            // The DLQ topic %DLQ%<name> is readable by a pull subscription on it.
            final String dlqReader = unique("dlqreader");
            assertThat(putSubscription(dlqReader, "{\"topic\":\"%DLQ%" + name + "\"}").statusCode())
                    .as("subscribing to the DLQ topic").isEqualTo(201);
            await().atMost(Duration.ofSeconds(20)).until(() -> rejecting.requests.get() >= 1);
            final List<JsonNode> dlq = new ArrayList<>();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                receive(dlqReader, 10, 2).forEach(dlq::add);
                return !dlq.isEmpty();
            });
            assertThat(dlq.get(0).get("id").asText()).isEqualTo("dlq-1");
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                    .until(() -> rejecting.requests.get() == 1);
            send(request("/subscriptions/" + name).DELETE());
        }
    }

    @Test
    void pushHonoursRetryAfterOn429() throws IOException {
        final AtomicInteger calls = new AtomicInteger();
        try (SinkServer sink = new SinkServer(() -> calls.getAndIncrement() == 0 ? 429 : 200,
                Map.of("Retry-After", "1"))) {
            final String topic = unique("t");
            final String name = unique("push");
            assertThat(putSubscription(name, "{\"topic\":\"" + topic + "\",\"sink\":\"" + sink.url()
                    + "\",\"delivery\":{\"retries\":3,\"backoffMillis\":10,\"backoffPolicy\":\"linear\"}}")
                    .statusCode()).isEqualTo(201);
            postBinary(topic, "ra-1", "text/plain", "later");
            await().atMost(Duration.ofSeconds(20)).until(() -> sink.received.size() == 2);
            final long gapMillis = (sink.arrivals.get(1) - sink.arrivals.get(0)) / 1_000_000;
            assertThat(gapMillis).as("waited for Retry-After: 1").isGreaterThanOrEqualTo(950);
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                    .until(() -> sink.requests.get() == 2);
            send(request("/subscriptions/" + name).DELETE());
        }
    }

    @Test
    void pushRetriesASinkThatTimesOut() throws IOException {
        final AtomicInteger calls = new AtomicInteger();
        try (SinkServer sink = new SinkServer(() -> {
            if (calls.getAndIncrement() == 0) {
                try {
                    Thread.sleep(1500); // the sink's own slowness, longer than the subscription's timeout
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return 200;
        }, Map.of())) {
            final String topic = unique("t");
            final String name = unique("push");
            assertThat(putSubscription(name, "{\"topic\":\"" + topic + "\",\"sink\":\"" + sink.url()
                    + "\",\"delivery\":{\"retries\":2,\"backoffMillis\":50,\"timeoutMillis\":500}}")
                    .statusCode()).isEqualTo(201);
            postBinary(topic, "to-1", "text/plain", "slow");
            await().atMost(Duration.ofSeconds(20)).until(() -> sink.requests.get() >= 2);
            assertThat(sink.received).extracting(CloudEvent::getId).containsOnly("to-1");
            send(request("/subscriptions/" + name).DELETE());
        }
    }

    /** A batch of {@code count} structured events with ids {@code prefix-0 ..}, posted to {@code topic}. */
    static void postBatch(final String topic, final String prefix, final int count) {
        final StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < count; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"specversion\":\"1.0\",\"id\":\"").append(prefix).append('-')
                    .append(i).append("\",\"source\":\"/conformance\",\"type\":\"com.example.test\",\"data\":\"d\"}");
        }
        final HttpResponse<String> r = post("/topics/" + topic, "application/cloudevents-batch+json",
                batch.append(']').toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
    }

    @Test
    void pushKeepsConnectionsToTheSinkAlive() throws IOException {
        try (RawSink sink = new RawSink(false)) {
            final String topic = unique("t");
            final String name = unique("push");
            assertThat(putSubscription(name, "{\"topic\":\"" + topic + "\",\"sink\":\"" + sink.url() + "\"}")
                    .statusCode()).isEqualTo(201);
            postBatch(topic, "ka", 40);
            await().atMost(Duration.ofSeconds(20)).until(() -> sink.answered.size() == 40);
            // At most push-concurrency (16) deliveries run at once, each on a connection of its own that is then
            // reused: one connection per event would be 40. A connection idle for 4 s is closed, and a delivery that
            // times out goes again on a new one, so a stalled machine may need some more (22 seen in a full run).
            assertThat(sink.connections.get()).isBetween(1, 32);
            send(request("/subscriptions/" + name).DELETE());
        }
    }

    @Test
    void pushResendsOnANewConnectionWhenTheSinkDroppedAKeptAliveOne() throws IOException {
        try (RawSink sink = new RawSink(true);
             SinkServer dead = new SinkServer(() -> 200, Map.of())) {
            final String topic = unique("t");
            final String name = unique("push");
            // No retries: without the resend, a dropped connection would dead-letter its event at once.
            assertThat(putSubscription(name, "{\"topic\":\"" + topic + "\",\"sink\":\"" + sink.url()
                    + "\",\"delivery\":{\"retries\":0,\"deadLetterSink\":\"" + dead.url() + "\"}}").statusCode())
                    .isEqualTo(201);
            postBatch(topic, "drop", 20);
            await().atMost(Duration.ofSeconds(20)).until(() -> sink.answered.size() == 20);
            assertThat(sink.dropped.get()).as("kept-alive connections were reused and dropped").isPositive();
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> dead.requests.get() == 0);
            send(request("/subscriptions/" + name).DELETE());
        }
    }

    @Test
    void aLongPollWhoseClientLeftTakesNothing() throws Exception {
        final String[] s = pullSubscription(",\"visibilitySeconds\":60");
        final int port = Integer.parseInt(broker.setting("http.port"));
        try (Socket socket = new Socket("127.0.0.1", port)) {
            final OutputStream out = socket.getOutputStream();
            out.write(("POST /subscriptions/" + s[1] + "/receive?max=1&waitSeconds=20 HTTP/1.1\r\nHost: x\r\n"
                    + "content-length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // the receive must be parked in the broker before the client leaves; no response shows it, so a pause
            Thread.sleep(500);
        }
        // the broker sees the close; an early event would go to the parked receive (invisible 60 s), so no poll
        Thread.sleep(300);
        assertThat(postBinary(s[0], "after-leave", "text/plain", "for the next receive").statusCode()).isEqualTo(202);
        final JsonNode got = receive(s[1], 1, 5);
        assertThat(got).as("the event went to the next receive, not to the client that left").hasSize(1);
        assertThat(got.get(0).get("id").asText()).isEqualTo("after-leave");
    }

    @Test
    void slowHeadersAreCutOffByTheReadTimeout() throws Exception {
        final String[] s = pullSubscription("");
        final int port = Integer.parseInt(broker.setting("http.port"));
        final long start = System.nanoTime();
        boolean closed = false;
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(200);
            final OutputStream out = socket.getOutputStream();
            final byte[] request = ("POST /topics/" + s[0] + " HTTP/1.1\r\nHost: x\r\nce-specversion: 1.0\r\n"
                    + "ce-id: slow\r\nce-source: /s\r\nce-type: t\r\ncontent-length: 0\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < request.length - 1 && !closed; i++) {
                try {
                    out.write(request[i]);
                    out.flush();
                    if (socket.getInputStream().read() == -1) {
                        closed = true;
                    }
                } catch (final java.net.SocketTimeoutException e) {
                    // nothing to read yet: keep trickling
                } catch (final IOException e) {
                    closed = true;
                }
            }
        }
        assertThat(closed).as("the broker closed the trickling connection").isTrue();
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(15_000);
        // On a new connection: the shared client's pooled one idled as long as the trickle and is being closed by
        // the same read timeout just now.
        final HttpResponse<String> r = HttpClient.newHttpClient().send(request("/subscriptions/" + s[1]
                + "/receive?max=10&waitSeconds=1").header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JSON.readTree(r.body())).as("nothing stored").isEmpty();
    }

    @Test
    void subscriptionsSurviveARestart(@TempDir final Path own) throws IOException {
        final Path data = own.resolve("data");
        final String name;
        try (RunningBroker first = RunningBroker.builder().dataDir(data).start()) {
            name = "durable-sub";
            final HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(first.httpBase()
                    + "/subscriptions/" + name)).PUT(HttpRequest.BodyPublishers.ofString(
                    "{\"topic\":\"durable\",\"visibilitySeconds\":7}")));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            assertThat(first.process().terminate(Duration.ofSeconds(30))).isZero();
        }
        try (RunningBroker second = RunningBroker.builder().dataDir(data).start()) {
            final HttpResponse<String> r = second.get("/subscriptions/" + name);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(json(r).get("visibilitySeconds").asInt()).isEqualTo(7);
            assertThat(json(r).get("topic").asText()).isEqualTo("durable");
        }
    }
}
