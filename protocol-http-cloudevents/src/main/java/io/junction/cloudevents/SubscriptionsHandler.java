package io.junction.cloudevents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.jackson.JsonFormat;
import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import io.junction.core.filter.MessageFilter;
import io.junction.core.meta.GroupConfig;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.clients.PopConsumers;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.junction.spi.kit.HeldMessages;
import io.junction.spi.kit.TopicProvisioner;
import io.junction.tenancy.Action;
import io.junction.tenancy.Principal;
import io.junction.tenancy.ResourceKind;
import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * {@code /subscriptions}: {@code GET} lists; {@code PUT}, {@code GET}, {@code DELETE /subscriptions/{name}};
 * {@code POST /subscriptions/{name}/receive?max=N&waitSeconds=S} pulls; {@code POST /subscriptions/{name}/ack} acks.
 *
 * <p>A subscription is a POP consumer group of the same name whose attribute {@value #ATTRIBUTE} holds its JSON
 * definition, so it is durable with the rest of the core's metadata and restored on start. Push subscriptions run a
 * {@link PushDispatcher} each.
 */
final class SubscriptionsHandler implements HttpHandler {
    static final String PREFIX = "/subscriptions";
    static final String ATTRIBUTE = "cloudevents.subscription";
    static final int MAX_WAIT_SECONDS = 60;
    private static final long MIN_REPOLL_NANOS = 20_000_000;

    private final Messaging messaging;
    private final TopicProvisioner topics;
    private final ObjectMapper json;
    private final CloudEventMapping mapping;
    private final JsonFormat format = new JsonFormat();
    private final JsonFormat textFormat = new JsonFormat().withForceNonJsonDataToString();
    private final JsonFormat base64Format = new JsonFormat().withForceJsonDataToBase64();
    private final Function<Subscription, PushDispatcher> dispatchers;
    private final Map<String, Subscription> active = new ConcurrentHashMap<>();
    private final Map<String, PushDispatcher> running = new ConcurrentHashMap<>();
    private final Map<String, MessageFilter> filters = new ConcurrentHashMap<>();
    private final Authorization authorization;
    /** Gives back what a receive popped for a caller no longer allowed to have it. */
    private final HeldMessages<?> held;

    /** Pull consumers, by address, for the console (they send no heartbeat). */
    private final PopConsumers popConsumers;

    SubscriptionsHandler(final Messaging messaging, final TopicProvisioner topics, final HeldMessages<?> held,
                         final ObjectMapper json, final CloudEventMapping mapping,
                         final Function<Subscription, PushDispatcher> dispatchers, final Authorization authorization,
                         final PopConsumers popConsumers) {
        this.popConsumers = popConsumers;
        this.messaging = messaging;
        this.topics = topics;
        this.held = held;
        this.authorization = authorization;
        this.json = json;
        this.mapping = mapping;
        this.dispatchers = dispatchers;
    }

    /** Restores stored subscriptions and starts their dispatchers. */
    void restore() {
        for (final GroupConfig g : messaging.groups().list()) {
            final String stored = g.attributes().get(ATTRIBUTE);
            if (stored != null) {
                activate(Subscription.fromStored(g.name(), stored, json));
            }
        }
    }

    void stopAll() {
        running.values().forEach(PushDispatcher::stop);
        running.clear();
    }

    private void activate(final Subscription s) {
        final PushDispatcher old = running.remove(s.name());
        if (old != null) {
            old.stop();
        }
        filters.put(s.name(), s.compiledFilter());
        active.put(s.name(), s);
        if (s.push()) {
            final PushDispatcher d = dispatchers.apply(s);
            running.put(s.name(), d);
            d.start();
        }
    }

    private void deactivate(final String name) {
        active.remove(name);
        filters.remove(name);
        final PushDispatcher d = running.remove(name);
        if (d != null) {
            d.stop();
        }
    }

    @Override
    public void handle(final HttpExchange exchange) {
        authorization.authenticate(exchange, (x, principal) -> {
            try {
                route(x, principal);
            } catch (final Problem p) {
                Responses.problem(x, json, p);
            }
        });
    }

    /** A subscription as its owner sees it: names inside the owner's namespace. */
    private ObjectNode shown(final Subscription s, final Principal principal) {
        final ObjectNode node = s.toJson(json);
        node.put("name", principal.unqualify(s.name()));
        node.put("topic", principal.unqualify(s.topic()));
        return node;
    }

    private void route(final HttpExchange exchange, final Principal principal) {
        final String path = exchange.path();
        final HttpMethod method = exchange.request().method();
        final String rest = path.length() > PREFIX.length() ? path.substring(PREFIX.length() + 1) : "";
        final String[] parts = rest.isEmpty() ? new String[0] : rest.split("/", -1);
        if (parts.length == 0) {
            requireMethod(method, HttpMethod.GET, path);
            final ArrayNode list = json.createArrayNode();
            active.values().stream()
                    .filter(s -> authorization.allows(principal, ResourceKind.GROUP, s.name(), Action.GET))
                    .sorted(Comparator.comparing(Subscription::name))
                    .forEach(s -> list.add(shown(s, principal)));
            Responses.json(exchange, HttpResponseStatus.OK, list.toString());
            return;
        }
        final String name = principal.qualify(parts[0]);
        if (parts.length == 1) {
            if (HttpMethod.PUT.equals(method)) {
                put(exchange, name, principal);
            } else if (HttpMethod.GET.equals(method)) {
                authorization.require(principal, ResourceKind.GROUP, name, Action.GET);
                final Subscription s = existing(name, principal);
                Responses.json(exchange, HttpResponseStatus.OK, shown(s, principal).toString());
            } else if (HttpMethod.DELETE.equals(method)) {
                delete(exchange, name, principal);
            } else {
                throw new Problem(HttpResponseStatus.METHOD_NOT_ALLOWED, null, "use PUT, GET or DELETE on " + path);
            }
            return;
        }
        if (parts.length == 2 && "receive".equals(parts[1])) {
            requireMethod(method, HttpMethod.POST, path);
            final long version = authorization.policyVersion(); // before deciding: see AccessControl#policyVersion
            authorization.require(principal, ResourceKind.GROUP, name, Action.SUB);
            final Subscription s = existing(name, principal);
            authorization.require(principal, ResourceKind.TOPIC, s.topic(), Action.SUB);
            receive(exchange, s, () -> {
                // a receive that waited while the rules changed is decided again before events go out
                if (authorization.policyVersion() != version) {
                    authorization.require(principal, ResourceKind.GROUP, name, Action.SUB);
                    authorization.require(principal, ResourceKind.TOPIC, s.topic(), Action.SUB);
                }
            });
            return;
        }
        if (parts.length == 2 && "ack".equals(parts[1])) {
            requireMethod(method, HttpMethod.POST, path);
            authorization.require(principal, ResourceKind.GROUP, name, Action.SUB);
            ack(exchange, existing(name, principal));
            return;
        }
        throw new Problem(HttpResponseStatus.NOT_FOUND, null, "no such resource " + path);
    }

    private static void requireMethod(final HttpMethod method, final HttpMethod allowed, final String path) {
        if (!allowed.equals(method)) {
            throw new Problem(HttpResponseStatus.METHOD_NOT_ALLOWED, null, "only " + allowed + " is allowed on "
                    + path);
        }
    }

    private Subscription existing(final String name, final Principal principal) {
        final Subscription s = active.get(name);
        if (s == null) {
            throw new Problem(HttpResponseStatus.NOT_FOUND, null, "no subscription named '"
                    + principal.unqualify(name) + "'");
        }
        return s;
    }

    private JsonNode body(final HttpExchange exchange) {
        try {
            return json.readTree((InputStream) new ByteBufInputStream(exchange.request().content().duplicate()));
        } catch (final IOException e) {
            throw Problem.badRequest(null, "malformed JSON: " + e.getMessage());
        }
    }

    private void put(final HttpExchange exchange, final String name, final Principal principal) {
        final Subscription parsed = Subscription.parse(principal.unqualify(name), body(exchange));
        final Subscription s = new Subscription(name, principal.qualify(parsed.topic()), parsed.sink(),
                parsed.filter(), parsed.delivery(), parsed.visibilitySeconds(),
                authorization.enabled() ? principal : null);
        final GroupConfig existing = messaging.groups().get(name).orElse(null);
        if (existing != null && !existing.attributes().containsKey(ATTRIBUTE)) {
            throw new Problem(HttpResponseStatus.CONFLICT, null, "consumer group '" + principal.unqualify(name)
                    + "' exists and is not a CloudEvents subscription");
        }
        final boolean created = existing == null;
        authorization.require(principal, ResourceKind.GROUP, name, created ? Action.CREATE : Action.UPDATE);
        authorization.require(principal, ResourceKind.TOPIC, s.topic(), Action.SUB);
        // A subscription may come before the topic's first event: the kit's rule creates the topic
        // (http-cloudevents.topic-queues queues) unless its name is a system topic's.
        final CompletableFuture<?> topic = topics.provision(s.topic());
        final String stored = s.toJson(json).toString();
        final long createdAt = System.currentTimeMillis();
        topic.thenCompose(t -> messaging.groups().createOrUpdate(new GroupConfig(name, s.delivery().retries(),
                false, false, Map.of(ATTRIBUTE, stored))))
                // A new subscription gets the events stored from its creation on, not the topic's history.
                .thenCompose(g -> created ? messaging.consumers().resetOffsets(name, s.topic(), createdAt)
                        : CompletableFuture.completedFuture(null))
                .whenComplete((g, e) -> {
                    if (e != null) {
                        Responses.storeFailure(exchange, json, e);
                        return;
                    }
                    activate(s);
                    Responses.json(exchange, created ? HttpResponseStatus.CREATED : HttpResponseStatus.OK,
                            shown(s, principal).toString());
                });
    }

    private void delete(final HttpExchange exchange, final String name, final Principal principal) {
        authorization.require(principal, ResourceKind.GROUP, name, Action.DELETE);
        existing(name, principal);
        deactivate(name);
        messaging.groups().delete(name).whenComplete((ok, e) -> {
            if (e != null) {
                Responses.storeFailure(exchange, json, e);
            } else {
                exchange.respond(HttpResponseStatus.NO_CONTENT, "application/json", "");
            }
        });
    }

    /** @param stillAllowed throws a 403 {@link Problem} when the caller may no longer receive (rules changed) */
    private void receive(final HttpExchange exchange, final Subscription s, final Runnable stillAllowed) {
        final int max = queryInt(exchange, "max", 1, 1, PopRequest.CLIENT_BATCH);
        final int wait = queryInt(exchange, "waitSeconds", 0, 0, MAX_WAIT_SECONDS);
        pop(s, max, System.nanoTime() + wait * 1_000_000_000L, exchange.channel()).whenComplete((messages, e) -> {
            if (e instanceof CancellationException
                    || e instanceof CompletionException && e.getCause() instanceof CancellationException) {
                return; // the client went away while waiting: nobody to answer, nothing was taken for it
            }
            if (e != null) {
                Responses.storeFailure(exchange, json, e);
                return;
            }
            if (!messages.isEmpty()) {
                try {
                    stillAllowed.run();
                } catch (final Problem p) {
                    held.giveBack(s.name(), messages); // not for this caller: the group's again now, uncounted
                    Responses.problem(exchange, json, p);
                    return;
                }
            }
            final StringBuilder sb = new StringBuilder().append('[');
            for (final PoppedMessage m : messages) {
                if (sb.length() > 1) {
                    sb.append(',');
                }
                sb.append(new String(serialize(mapping.toEvent(m.message(), m.topic(), m.receiptHandle())),
                        StandardCharsets.UTF_8));
            }
            sb.append(']');
            exchange.respond(HttpResponseStatus.OK, EventDecoder.BATCH, sb.toString());
        });
    }

    /**
     * Pops until something comes or the deadline passes: a long-polling pop may return empty early (woken by an
     * arrival its filter rejects), so an empty answer before the deadline is asked again with the time left. A client
     * that closes its connection cancels the waiting pop, which would otherwise take events for nobody (they would
     * come back only after the subscription's visibility timeout).
     */
    private CompletableFuture<List<PoppedMessage>> pop(final Subscription s, final int max, final long deadline,
                                                       final Channel client) {
        final long waitMillis = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
        popConsumers.popped(s.name(), "http", "", ClientRegistry.address(client.remoteAddress()));
        final CompletableFuture<PopResult> popped = messaging.pop(new PopRequest(s.name(),
                s.topic(), filters.getOrDefault(s.name(), MessageFilter.ALL), max,
                s.visibilitySeconds() * 1000L, waitMillis));
        if (waitMillis > 0 && !popped.isDone()) {
            final ChannelFutureListener gone = f -> popped.cancel(false);
            client.closeFuture().addListener(gone);
            popped.whenComplete((r, e) -> client.closeFuture().removeListener(gone));
        }
        return popped.thenCompose(result -> {
            if (!result.messages().isEmpty() || deadline - System.nanoTime() < MIN_REPOLL_NANOS) {
                return CompletableFuture.completedFuture(result.messages());
            }
            return pop(s, max, deadline, client);
        });
    }

    /**
     * The JSON event format, choosing how data appears: JSON data inline, text data ({@code text/*}) as a string,
     * anything else (and data that claims to be JSON but does not parse) as {@code data_base64}.
     */
    byte[] serialize(final CloudEvent event) {
        if (event.getData() == null) {
            return format.serialize(event);
        }
        final String media = EventDecoder.mediaType(event.getDataContentType());
        if (media != null && media.startsWith("text/")) {
            return textFormat.serialize(event);
        }
        if (EventDecoder.isJson(event.getDataContentType())) {
            try {
                json.readTree(event.getData().toBytes());
                return format.serialize(event);
            } catch (final IOException e) {
                return base64Format.serialize(event);
            }
        }
        return format.serialize(event);
    }

    private void ack(final HttpExchange exchange, final Subscription s) {
        final JsonNode body = body(exchange);
        final JsonNode receipts = body == null ? null : body.get("receipts");
        if (receipts == null || !receipts.isArray()) {
            throw Problem.badRequest("receipts", "expected {\"receipts\": [\"...\"]}");
        }
        final List<String> handles = new ArrayList<>();
        for (final JsonNode r : receipts) {
            if (!r.isTextual()) {
                throw Problem.badRequest("receipts", "receipts must be strings");
            }
            handles.add(r.textValue());
        }
        final List<CompletableFuture<String>> results = new ArrayList<>();
        for (final String h : handles) {
            results.add(messaging.ack(s.name(), h).handle((v, e) -> e == null ? null
                    : Responses.toProblem(e).getMessage()));
        }
        CompletableFuture.allOf(results.toArray(new CompletableFuture<?>[0])).whenComplete((v, e) -> {
            final ObjectNode out = json.createObjectNode();
            final ArrayNode failed = out.putArray("failed");
            int acked = 0;
            for (int i = 0; i < handles.size(); i++) {
                final String error = results.get(i).join();
                if (error == null) {
                    acked++;
                } else {
                    failed.addObject().put("receipt", handles.get(i)).put("detail", error);
                }
            }
            out.put("acked", acked);
            Responses.json(exchange, HttpResponseStatus.OK, out.toString());
        });
    }

    private static int queryInt(final HttpExchange exchange, final String name, final int dflt, final int min,
                                final int max) {
        final List<String> values = exchange.queryParameters().get(name);
        if (values == null || values.isEmpty()) {
            return dflt;
        }
        try {
            final int v = Integer.parseInt(values.get(0));
            if (v < min || v > max) {
                throw Problem.badRequest(name, name + " must be in " + min + ".." + max);
            }
            return v;
        } catch (final NumberFormatException e) {
            throw Problem.badRequest(name, name + " must be an integer in " + min + ".." + max);
        }
    }
}
