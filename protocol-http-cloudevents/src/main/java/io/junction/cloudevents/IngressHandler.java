package io.junction.cloudevents;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.junction.core.Messaging;
import io.junction.core.SendResult;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.junction.tenancy.Action;
import io.junction.tenancy.Principal;
import io.junction.tenancy.ResourceKind;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code POST /topics/{topic}}: decodes and validates every event first (a bad batch stores nothing), then sends each
 * one that is not a duplicate and answers 202 once all sends complete, with {@code {"messageIds": [...], "events":
 * [{"id", "source", "messageId", "duplicate"}]}}. Never blocks: the response is written from the send futures.
 *
 * <p>Dedup: (source, id) pairs seen within the window map to the future of their first send, so a repeat answers with
 * the first message id and stores nothing. The {@link DedupWindow} is bounded (oldest forgotten first), so the guarantee
 * holds within the window and the size bound; a failed send is forgotten so a retry can store it.
 */
final class IngressHandler implements HttpHandler {
    static final String PREFIX = "/topics/";

    private final Messaging messaging;
    private final CloudEventMapping mapping;
    private final EventDecoder decoder;
    private final ObjectMapper json;
    private final DedupWindow<CompletableFuture<String>> seen;
    private final Authorization authorization;

    IngressHandler(final Messaging messaging, final CloudEventMapping mapping, final EventDecoder decoder,
                   final ObjectMapper json, final Duration dedupWindow, final long dedupMaxEntries,
                   final Authorization authorization) {
        this.messaging = messaging;
        this.authorization = authorization;
        this.mapping = mapping;
        this.decoder = decoder;
        this.json = json;
        this.seen = dedupWindow.isZero() ? null : new DedupWindow<>(dedupWindow.toNanos(),
                (int) Math.min(Integer.MAX_VALUE, dedupMaxEntries), System::nanoTime);
    }

    @Override
    public void handle(final HttpExchange exchange) {
        authorization.authenticate(exchange, this::handle);
    }

    private void handle(final HttpExchange exchange, final Principal principal) {
        final String name = exchange.path().substring(PREFIX.length());
        if (name.isEmpty() || name.indexOf('/') >= 0 || !validTopic(name)) {
            Responses.problem(exchange, json, new Problem(HttpResponseStatus.NOT_FOUND, null,
                    "no such resource: topics are /topics/{topic} with a topic name of letters, digits, '-', '_', "
                            + "'.', at most 127 characters"));
            return;
        }
        if (!HttpMethod.POST.equals(exchange.request().method())) {
            Responses.problem(exchange, json, new Problem(HttpResponseStatus.METHOD_NOT_ALLOWED, null,
                    "only POST is allowed on " + exchange.path()));
            return;
        }
        final String topic = principal.qualify(name);
        final List<CloudEvent> events;
        try {
            authorization.require(principal, ResourceKind.TOPIC, topic, Action.PUB);
            events = decoder.decode(exchange.request());
        } catch (final Problem p) {
            Responses.problem(exchange, json, p);
            return;
        }
        final var admission = authorization.admitPublish(principal, events.size(),
                exchange.request().content().readableBytes());
        if (!admission.admitted()) {
            Responses.tooManyRequests(exchange, json, admission.retryAfterMillis());
            return;
        }
        final List<CompletableFuture<String>> ids = new ArrayList<>(events.size());
        final boolean[] duplicate = new boolean[events.size()];
        for (int i = 0; i < events.size(); i++) {
            final CloudEvent event = events.get(i);
            final CompletableFuture<String> mine = new CompletableFuture<>();
            final String key = topic + '\u0000' + event.getSource() + '\u0000' + event.getId();
            final CompletableFuture<String> earlier = seen == null ? null : seen.putIfAbsent(key, mine);
            if (earlier != null) {
                duplicate[i] = true;
                ids.add(earlier);
                continue;
            }
            ids.add(mine);
            messaging.send(mapping.toMessage(topic, event)).whenComplete((SendResult r, Throwable e) -> {
                if (e != null) {
                    if (seen != null) {
                        seen.forget(key, mine);
                    }
                    mine.completeExceptionally(e);
                } else {
                    mine.complete(r.uniqueId());
                }
            });
        }
        // The answer is built on the connection's event loop: the futures complete on the store's flusher thread,
        // which every sender of every protocol waits for and must not spend its time writing JSON.
        final CompletableFuture<?> all = ids.size() == 1 ? ids.get(0)
                : CompletableFuture.allOf(ids.toArray(new CompletableFuture<?>[0]));
        all.whenCompleteAsync((v, e) -> {
            if (e != null) {
                Responses.storeFailure(exchange, json, e);
                return;
            }
            exchange.respond(accepted(exchange.channel().alloc(), events, ids, duplicate));
        }, exchange.channel().eventLoop());
    }

    /** {@code {"messageIds":[..],"events":[{"id","source","messageId","duplicate"},..]}}, streamed as UTF-8. */
    private FullHttpResponse accepted(final ByteBufAllocator alloc, final List<CloudEvent> events,
                                      final List<CompletableFuture<String>> ids, final boolean[] duplicate) {
        final ByteBuf body = alloc.buffer(64 + events.size() * 160);
        try (JsonGenerator g = json.getFactory().createGenerator((OutputStream) new ByteBufOutputStream(body))) {
            g.writeStartObject();
            g.writeArrayFieldStart("messageIds");
            for (CompletableFuture<String> id : ids) {
                g.writeString(id.join());
            }
            g.writeEndArray();
            g.writeArrayFieldStart("events");
            for (int i = 0; i < events.size(); i++) {
                g.writeStartObject();
                g.writeStringField("id", events.get(i).getId());
                g.writeStringField("source", events.get(i).getSource().toString());
                g.writeStringField("messageId", ids.get(i).join());
                g.writeBooleanField("duplicate", duplicate[i]);
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            body.release();
            throw new UncheckedIOException(e); // writing into a heap or direct buffer does not fail
        } catch (RuntimeException e) {
            body.release();
            throw e;
        }
        final FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.ACCEPTED, body);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        return response;
    }

    static boolean validTopic(final String topic) {
        if (topic.length() > 127) {
            return false;
        }
        for (int i = 0; i < topic.length(); i++) {
            final char c = topic.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128) && c != '-' && c != '_' && c != '.') {
                return false;
            }
        }
        return true;
    }
}
