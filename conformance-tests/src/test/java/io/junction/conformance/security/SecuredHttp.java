package io.junction.conformance.security;

import io.junction.conformance.support.RunningBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

/** HTTP requests to a secured broker, with or without credentials. */
final class SecuredHttp {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private SecuredHttp() {
    }

    static String basic(final String user, final String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
    }

    /** An HTTP request to the broker; {@code authorization} null sends none. */
    static HttpResponse<String> http(final RunningBroker broker, final String method, final String path,
                                     final String authorization, final String contentType, final String body,
                                     final Map<String, String> headers) {
        final HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(broker.httpBase() + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        headers.forEach(b::header);
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
