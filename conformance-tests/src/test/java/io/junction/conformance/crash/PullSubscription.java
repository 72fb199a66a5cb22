package io.junction.conformance.crash;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.junction.conformance.support.BrokerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A CloudEvents pull subscription (a POP consumer group on the broker): {@code PUT /subscriptions/{name}}, then
 * {@code POST .../receive} and {@code POST .../ack}. Received events are handed out invisible to the group for the
 * subscription's visibility time; what is not acked by then comes back.
 */
final class PullSubscription {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A received event: its CloudEvents id, its data bytes and the receipt that acks it. */
    record Event(String id, byte[] data, String receipt) {
    }

    private final HttpClient http;
    private final String name;

    PullSubscription(final HttpClient http, final String name) {
        this.http = http;
        this.name = name;
    }

    String name() {
        return name;
    }

    void create(final BrokerProcess broker, final String topic, final int visibilitySeconds)
            throws IOException, InterruptedException {
        final HttpResponse<String> r = http.send(request(broker, "").header("content-type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"topic\":\"" + topic + "\",\"visibilitySeconds\":"
                        + visibilitySeconds + "}")).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new AssertionError("creating subscription " + name + ": " + r.statusCode() + " " + r.body());
        }
    }

    /** Up to {@code max} events, waiting up to {@code waitSeconds} for the first. */
    List<Event> receive(final BrokerProcess broker, final int max, final int waitSeconds)
            throws IOException, InterruptedException {
        final HttpResponse<String> r = http.send(request(broker, "/receive?max=" + max + "&waitSeconds=" + waitSeconds)
                .timeout(Duration.ofSeconds(waitSeconds + 10L)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("receive on " + name + ": " + r.statusCode() + " " + r.body());
        }
        final List<Event> events = new ArrayList<>();
        for (JsonNode e : JSON.readTree(r.body())) {
            events.add(new Event(e.get("id").asText(), data(e), e.get("receipt").asText()));
        }
        return events;
    }

    void ack(final BrokerProcess broker, final List<Event> events) throws IOException, InterruptedException {
        if (events.isEmpty()) {
            return;
        }
        final StringBuilder json = new StringBuilder("{\"receipts\":[");
        for (int i = 0; i < events.size(); i++) {
            json.append(i == 0 ? "" : ",").append('"').append(events.get(i).receipt()).append('"');
        }
        json.append("]}");
        final HttpResponse<String> r = http.send(request(broker, "/ack").header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        final JsonNode body = r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
        if (body == null || body.get("acked").asInt() != events.size()) {
            throw new IOException("ack on " + name + ": " + r.statusCode() + " " + r.body());
        }
    }

    /** The event's data as bytes: binary data arrives as {@code data_base64}, text and JSON as {@code data}. */
    private static byte[] data(final JsonNode event) {
        final JsonNode base64 = event.get("data_base64");
        if (base64 != null) {
            return Base64.getDecoder().decode(base64.asText());
        }
        final JsonNode data = event.get("data");
        if (data == null) {
            return new byte[0];
        }
        return (data.isTextual() ? data.asText() : data.toString()).getBytes(StandardCharsets.UTF_8);
    }

    private HttpRequest.Builder request(final BrokerProcess broker, final String suffix) {
        return HttpRequest.newBuilder(URI.create(broker.httpBase() + "/subscriptions/" + name + suffix))
                .timeout(Duration.ofSeconds(10));
    }
}
