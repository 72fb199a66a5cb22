package io.junction.broker.console;

import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The console's static files under {@value #PATH}: the page and its ES modules from this package's {@code web}
 * folder, and the toolkit's files from their WebJars ({@code /console/lib/<webjar>/<file>}, the WebJar's version found
 * in its {@code pom.properties}, so the page names no version). Every file is read from the classpath once, at
 * start, so a request never touches the jar; anything not listed is 404. Static files carry no data, so they are served
 * without authentication; the API they call is authenticated.
 */
final class ConsoleAssets implements HttpHandler {

    static final String PATH = "/console";

    private static final String WEB = "io/junction/broker/console/web/";
    /**
     * Only the broker's own files run and are fetched, and no other site may frame the page (its buttons delete and
     * disconnect). Alpine evaluates its attribute expressions with {@code new Function} ({@code 'unsafe-eval'}); uPlot
     * and Alpine set inline styles.
     */
    private static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self' 'unsafe-eval'; "
            + "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";
    private static final List<String> PAGES = List.of("index.html", "console.css", "api.js", "format.js", "main.js",
            "overview.js", "paged.js", "topics.js", "groups.js", "messages.js", "connections.js", "security.js");
    /** WebJar files the page loads: webjar name, then paths inside its versioned folder. */
    private static final Map<String, List<String>> LIBRARIES = Map.of(
            "alpinejs", List.of("dist/module.esm.js"),
            "uplot", List.of("dist/uPlot.esm.js", "dist/uPlot.min.css"));

    private final Map<String, Asset> assets = new HashMap<>();

    private record Asset(byte[] bytes, String contentType) {
    }

    ConsoleAssets() {
        final ClassLoader loader = ConsoleAssets.class.getClassLoader();
        for (final String page : PAGES) {
            assets.put(PATH + "/" + page, new Asset(read(loader, WEB + page), contentType(page)));
        }
        assets.put(PATH, assets.get(PATH + "/index.html"));
        LIBRARIES.forEach((webjar, files) -> {
            final String version = webJarVersion(loader, webjar);
            for (final String file : files) {
                assets.put(PATH + "/lib/" + webjar + "/" + file, new Asset(
                        read(loader, "META-INF/resources/webjars/" + webjar + "/" + version + "/" + file),
                        contentType(file)));
            }
        });
    }

    @Override
    public void handle(final HttpExchange exchange) {
        final HttpMethod method = exchange.request().method();
        if (!HttpMethod.GET.equals(method) && !HttpMethod.HEAD.equals(method)) {
            exchange.respond(HttpResponseStatus.METHOD_NOT_ALLOWED, "text/plain", "the console is read with GET\n");
            return;
        }
        String path = exchange.path();
        if (path.endsWith("/") && path.length() > 1) {
            path = path.substring(0, path.length() - 1);
        }
        final Asset asset = assets.get(path);
        if (asset == null) {
            exchange.respond(HttpResponseStatus.NOT_FOUND, "text/plain", "no console file " + path + "\n");
            return;
        }
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(asset.bytes()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, asset.contentType())
                .set(HttpHeaderNames.CACHE_CONTROL, "no-cache")
                .set("X-Content-Type-Options", "nosniff")
                .set("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                .set("X-Frame-Options", "DENY");
        exchange.respond(response);
    }

    private static String webJarVersion(final ClassLoader loader, final String webjar) {
        final Properties p = new Properties();
        try (InputStream in = loader.getResourceAsStream("META-INF/maven/org.webjars.npm/" + webjar
                + "/pom.properties")) {
            if (in == null) {
                throw new IllegalStateException("the WebJar " + webjar + " is not on the classpath");
            }
            p.load(in);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("version");
    }

    private static byte[] read(final ClassLoader loader, final String resource) {
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("console file missing from the classpath: " + resource);
            }
            return in.readAllBytes();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String contentType(final String file) {
        if (file.endsWith(".html")) {
            return "text/html; charset=utf-8";
        }
        if (file.endsWith(".css")) {
            return "text/css; charset=utf-8";
        }
        return "text/javascript; charset=utf-8";
    }
}
