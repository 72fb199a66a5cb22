package io.junction.broker.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.broker.metrics.BrokerMetrics;
import io.junction.broker.netty.NettyTransport;
import io.junction.spi.Endpoint;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.metrics.ConnectionCounter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HttpListenerTest {

    private static final int MAX_REQUEST = 1024;
    private static final long READ_TIMEOUT_MS = 300;

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private NettyTransport transport;
    private BrokerMetrics metrics;
    private HttpRouter router;
    private HealthState health;
    private HttpListener listener;
    private String base;

    @BeforeEach
    void start() throws Exception {
        transport = NettyTransport.create(1);
        metrics = BrokerMetrics.create();
        router = new HttpRouter();
        health = new HealthState();
        router.register(HealthHandler.PATH, new HealthHandler(health));
        router.register(MetricsHandler.PATH, new MetricsHandler(metrics));
        listener = HttpListener.bind(transport, "127.0.0.1", 0, "127.0.0.1", router,
                new HttpListener.Limits(MAX_REQUEST, READ_TIMEOUT_MS), new ConnectionCounter(metrics.registry(), "http"));
        base = listener.endpoint().address();
    }

    @AfterEach
    void stop() throws Exception {
        listener.close();
        transport.close();
        metrics.close();
    }

    @Test
    void shouldAnswerHealth503UntilUpThen200WithListeners() throws Exception {
        final HttpResponse<String> starting = get("/health");
        assertThat(starting.statusCode()).isEqualTo(503);
        assertThat(starting.body()).contains("\"status\":\"STARTING\"");

        health.up(List.of(new Endpoint("remoting", "127.0.0.1:9876"), listener.endpoint()));

        final HttpResponse<String> up = get("/health");
        assertThat(up.statusCode()).isEqualTo(200);
        assertThat(up.headers().firstValue("content-type")).contains("application/json");
        assertThat(up.body()).isEqualTo("{\"status\":\"UP\",\"listeners\":{\"remoting\":\"127.0.0.1:9876\","
                + "\"http\":\"" + base + "\"}}");

        health.stopping();
        assertThat(get("/health").statusCode()).isEqualTo(503);
    }

    @Test
    void shouldExportStoreTrafficJvmAndConnectionMetrics() throws Exception {
        metrics.storeMetrics().messageStored("orders", 100, 250_000);
        metrics.storeMetrics().messagesDelivered("orders", 2, 200);

        final HttpResponse<String> response = get("/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("text/plain"));
        assertThat(response.body())
                .contains("junction_messages_in_total{topic=\"orders\"} 1.0")
                .contains("junction_bytes_in_total{topic=\"orders\"} 100.0")
                .contains("junction_messages_out_total{topic=\"orders\"} 2.0")
                .contains("junction_bytes_out_total{topic=\"orders\"} 200.0")
                .contains("junction_append_latency_seconds_bucket")
                .contains("junction_append_latency_seconds_count 1")
                .contains("junction_connections{protocol=\"http\"} 1.0")
                .contains("jvm_memory_used_bytes")
                .contains("process_uptime_seconds");
    }

    @Test
    void shouldAnswer404ForUnknownPathsAnd405ForWrongMethods() throws Exception {
        assertThat(get("/nothing-here").statusCode()).isEqualTo(404);
        final HttpResponse<String> post = client.send(HttpRequest.newBuilder(URI.create(base + "/health"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("allow")).contains("GET, HEAD");
    }

    @Test
    void shouldAnswerHeadWithoutBody() throws Exception {
        health.up(List.of(listener.endpoint()));
        final HttpResponse<String> head = client.send(HttpRequest.newBuilder(URI.create(base + "/health"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValueAsLong("content-length").orElse(0)).isPositive();
    }

    @Test
    void shouldRefuseRequestsAboveTheSizeBound() throws Exception {
        router.register("/echo", exchange -> exchange.respond(HttpResponseStatus.OK, "text/plain", "ok"));

        final HttpResponse<String> tooLarge = client.send(HttpRequest.newBuilder(URI.create(base + "/echo"))
                .POST(HttpRequest.BodyPublishers.ofString("x".repeat(MAX_REQUEST + 1))).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(tooLarge.statusCode()).isEqualTo(413);
    }

    @Test
    void shouldLetRoutesAnswerAsynchronouslyWithTheBodyRetained() throws Exception {
        router.register("/topics/", exchange -> {
            final String body = exchange.request().content().toString(StandardCharsets.UTF_8);
            final String path = exchange.path();
            final List<String> q = exchange.queryParameters().getOrDefault("q", List.of());
            CompletableFuture.runAsync(() -> exchange.respond(HttpResponseStatus.ACCEPTED, "text/plain",
                    path + " " + q + " " + body), CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS));
        });

        final HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                URI.create(base + "/topics/orders?q=1")).POST(HttpRequest.BodyPublishers.ofString("hello")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(202);
        assertThat(response.body()).isEqualTo("/topics/orders [1] hello");
    }

    @Test
    void shouldAnswerPipelinedRequestsInOrder() throws Exception {
        router.register("/slow", exchange -> CompletableFuture.runAsync(
                () -> exchange.respond(HttpResponseStatus.OK, "text/plain", "slow"),
                CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS)));
        router.register("/fast", exchange -> exchange.respond(HttpResponseStatus.OK, "text/plain", "fast"));

        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            socket.setSoTimeout(5000);
            final OutputStream out = socket.getOutputStream();
            out.write(("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            final String all = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);

            assertThat(all.indexOf("slow")).isPositive().isLessThan(all.indexOf("fast"));
        }
    }

    @Test
    void shouldAnswer500WhenARouteThrows() throws Exception {
        router.register("/broken", exchange -> {
            throw new IllegalStateException("boom");
        });

        assertThat(get("/broken").statusCode()).isEqualTo(500);
    }

    @Test
    void shouldCloseAConnectionThatSendsNoCompleteRequestInTime() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            socket.setSoTimeout(5000);
            final OutputStream out = socket.getOutputStream();
            out.write("GET /health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII)); // headers never end
            out.flush();
            final long start = System.nanoTime();
            final InputStream in = socket.getInputStream();

            assertThat(in.read()).isEqualTo(-1); // closed by the server, not by our 5 s socket timeout
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        }
    }

    @Test
    void shouldKeepAConnectionWhoseAnswerTakesLongerThanTheReadTimeoutAndCloseItOnceIdle() throws Exception {
        router.register("/slow", exchange -> CompletableFuture.runAsync(
                () -> exchange.respond(HttpResponseStatus.OK, "text/plain", "slow"),
                CompletableFuture.delayedExecutor(READ_TIMEOUT_MS * 2, TimeUnit.MILLISECONDS)));

        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            socket.setSoTimeout(5000);
            final OutputStream out = socket.getOutputStream();
            final InputStream in = socket.getInputStream();
            out.write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            final String first = readResponse(in);
            // Answered after twice the read timeout: the timeout only runs while no request is being answered.
            assertThat(first).startsWith("HTTP/1.1 200").endsWith("slow");

            out.write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readResponse(in)).startsWith("HTTP/1.1 200");

            final long idleFrom = System.nanoTime();
            assertThat(in.read()).isEqualTo(-1); // idle after the answer: closed by the server
            assertThat(Duration.ofNanos(System.nanoTime() - idleFrom))
                    .isGreaterThanOrEqualTo(Duration.ofMillis(READ_TIMEOUT_MS - 50)).isLessThan(Duration.ofSeconds(3));
        }
    }

    /** Reads one response with a content-length body. */
    private static String readResponse(final InputStream in) throws IOException {
        final StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            final int b = in.read();
            if (b < 0) {
                throw new IOException("closed within a response: " + head);
            }
            head.append((char) b);
        }
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)")
                .matcher(head);
        final int length = m.find() ? Integer.parseInt(m.group(1)) : 0;
        return head + new String(in.readNBytes(length), StandardCharsets.US_ASCII);
    }

    @Test
    void shouldAnswerMalformedRequestsWith400AndClose() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", listener.port())) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write("GARBAGE\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            final String all = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);

            assertThat(all).startsWith("HTTP/1.1 400");
        }
    }

    @Test
    void shouldHandAConnectionOverForAWebSocketUpgrade() throws Exception {
        router.register("/ws", exchange -> {
            final ChannelPipeline pipeline = exchange.takeOver();
            pipeline.addLast(new SimpleChannelInboundHandler<TextWebSocketFrame>() {
                @Override
                protected void channelRead0(final ChannelHandlerContext ctx, final TextWebSocketFrame frame) {
                    ctx.writeAndFlush(new TextWebSocketFrame("echo:" + frame.text()));
                }
            });
            final WebSocketServerHandshaker handshaker = new WebSocketServerHandshakerFactory(
                    "ws://127.0.0.1/ws", null, false).newHandshaker(exchange.request());
            handshaker.handshake(exchange.channel(), exchange.request());
        });

        final BlockingQueue<String> received = new LinkedBlockingQueue<>();
        final WebSocket socket = client.newWebSocketBuilder()
                .buildAsync(URI.create(base.replace("http://", "ws://") + "/ws"), new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onText(final WebSocket webSocket, final CharSequence data,
                                                     final boolean last) {
                        received.add(data.toString());
                        webSocket.request(1);
                        return null;
                    }
                }).get(5, TimeUnit.SECONDS);
        socket.sendText("hi", true).get(5, TimeUnit.SECONDS);
        assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo("echo:hi");

        // Let the broker's read timeout pass: it left with the dispatcher, so the upgraded connection stays open.
        CompletableFuture.runAsync(() -> { },
                CompletableFuture.delayedExecutor(READ_TIMEOUT_MS * 2, TimeUnit.MILLISECONDS)).get();
        socket.sendText("again", true).get(5, TimeUnit.SECONDS);
        assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo("echo:again");
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(5, TimeUnit.SECONDS);
    }

    @Test
    void shouldReportAPortInUseInOneLine() {
        assertThatThrownBy(() -> HttpListener.bind(transport, "127.0.0.1", listener.port(), "127.0.0.1", router,
                new HttpListener.Limits(MAX_REQUEST, READ_TIMEOUT_MS), new ConnectionCounter(metrics.registry(), "x")))
                .isInstanceOf(ListenException.class)
                .hasMessage("cannot listen for http on 127.0.0.1:" + listener.port() + ": Address already in use");
    }

    private HttpResponse<String> get(final String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
