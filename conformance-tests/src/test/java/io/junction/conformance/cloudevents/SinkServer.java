package io.junction.conformance.cloudevents;

import com.sun.net.httpserver.HttpServer;
import io.cloudevents.CloudEvent;
import io.cloudevents.http.HttpMessageFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/** A local HTTP sink: decodes every POST with the SDK's HTTP binding and answers a chosen status. */
final class SinkServer implements AutoCloseable {
    final List<CloudEvent> received = new CopyOnWriteArrayList<>();
    final List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
    final AtomicInteger requests = new AtomicInteger();
    final List<Long> arrivals = new CopyOnWriteArrayList<>();
    private final HttpServer server;

    SinkServer(final IntSupplier status, final Map<String, String> responseHeaders) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            arrivals.add(System.nanoTime());
            final byte[] body = exchange.getRequestBody().readAllBytes();
            final Map<String, String> h = new HashMap<>();
            exchange.getRequestHeaders().forEach((k, v) -> h.put(k.toLowerCase(java.util.Locale.ROOT), v.get(0)));
            headers.add(h);
            try {
                received.add(HttpMessageFactory.createReader(h, body).toEvent());
            } catch (final RuntimeException e) {
                // not a CloudEvent: counted in requests only
            }
            responseHeaders.forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            exchange.sendResponseHeaders(status.getAsInt(), -1);
            exchange.close();
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/sink";
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
