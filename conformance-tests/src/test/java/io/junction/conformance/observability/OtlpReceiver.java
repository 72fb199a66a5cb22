package io.junction.conformance.observability;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A small OTLP/HTTP receiver for tests: takes every POST on {@code /v1/metrics} and {@code /v1/traces}, answers 200
 * (an empty export response), and keeps the bodies. OTLP/HTTP bodies are protobuf, in which names and string
 * attribute values appear as UTF-8 bytes, so a test can look for them without decoding the messages.
 */
final class OtlpReceiver implements AutoCloseable {

    private final HttpServer server;
    private final List<Export> exports = new CopyOnWriteArrayList<>();

    /** One request: its path and body. */
    record Export(String path, byte[] body) {
        /** The body read as Latin-1, so every byte is one char and UTF-8 names can be searched for. */
        String text() {
            return new String(body, StandardCharsets.ISO_8859_1);
        }
    }

    private OtlpReceiver(final HttpServer server) {
        this.server = server;
    }

    static OtlpReceiver start() {
        try {
            final HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            final OtlpReceiver receiver = new OtlpReceiver(server);
            server.createContext("/v1/", exchange -> {
                try (InputStream in = exchange.getRequestBody()) {
                    receiver.exports.add(new Export(exchange.getRequestURI().getPath(), in.readAllBytes()));
                }
                exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
            });
            server.start();
            return receiver;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The base URL to configure as {@code otel.endpoint}. */
    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Everything received on {@code path} so far, concatenated as text. */
    String received(final String path) {
        final StringBuilder all = new StringBuilder();
        exports.stream().filter(e -> e.path().equals(path)).forEach(e -> all.append(e.text()).append('\n'));
        return all.toString();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
