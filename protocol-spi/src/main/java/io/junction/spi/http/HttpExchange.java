package io.junction.spi.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;

/** One HTTP request and the way to answer it. */
public interface HttpExchange {

    /**
     * The complete request (headers and aggregated body, within the listener's size bound). It is released when
     * {@link HttpHandler#handle} returns: call {@code retain()} on it (and release it later) or copy what you need to
     * use it in an asynchronous continuation.
     */
    FullHttpRequest request();

    /** The decoded request path, without the query string. */
    String path();

    /** The decoded query parameters. */
    Map<String, List<String>> queryParameters();

    /** The connection, e.g. for its remote address. */
    Channel channel();

    /**
     * Sends the response. Callable from any thread, exactly once. The broker sets {@code content-length} and
     * {@code connection} headers, drops the body for {@code HEAD}, and closes the connection afterwards when the
     * client did not ask to keep it alive. Takes ownership of {@code response}.
     *
     * @throws IllegalStateException if the exchange was already answered or taken over
     */
    void respond(FullHttpResponse response);

    /** Sends a response with a UTF-8 text body of the given content type. */
    void respond(HttpResponseStatus status, String contentType, String body);

    /**
     * Takes the connection away from the broker's HTTP handling, for a protocol upgrade such as WebSocket. Call it on
     * the event loop, from {@link HttpHandler#handle}. The broker removes its dispatcher and read timeout; the pipeline
     * keeps {@code HttpServerCodec} (named {@value #CODEC_HANDLER}) and {@code HttpObjectAggregator} (named
     * {@value #AGGREGATOR_HANDLER}) so a WebSocket handshaker can replace them. The caller then adds its handlers and
     * completes the handshake with {@link #request()}. From then on the front-end owns the channel; this exchange can
     * no longer respond.
     *
     * @return the connection's pipeline
     */
    ChannelPipeline takeOver();

    /** Name of the HTTP codec in the pipeline. */
    String CODEC_HANDLER = "http-codec";

    /** Name of the request aggregator in the pipeline. */
    String AGGREGATOR_HANDLER = "http-aggregator";
}
