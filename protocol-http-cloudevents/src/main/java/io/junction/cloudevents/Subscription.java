package io.junction.cloudevents;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.core.filter.Filters;
import io.junction.core.filter.InvalidFilterException;
import io.junction.core.filter.MessageFilter;
import io.junction.tenancy.Principal;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A subscription as {@code PUT /subscriptions/{name}} defines it. It is a POP consumer group named {@code name}: pushed
 * to {@code sink} when there is one, pulled otherwise.
 *
 * <pre>
 * {"topic": "orders",                       required
 *  "sink": "http://host:port/path",          optional; http only
 *  "filter": {"attributes": {"type": "x"}}   Knative exact matches (an empty value only requires presence)
 *          | {"filters": [expr, ...]}        CloudEvents Subscriptions API: exact, prefix, suffix, all, any, not, sql
 *          | expr                            one such expression, e.g. {"sql": "type LIKE 'a.%'"}
 *          | [expr, ...],
 *  "delivery": {"retries": 3, "backoffMillis": 1000, "backoffPolicy": "exponential|linear",
 *               "deadLetterSink": "http://...", "timeoutMillis": 10000},
 *  "visibilitySeconds": 30}
 * </pre>
 *
 * <p>The broker adds {@code "owner": {"user": "alice", "namespace": "acme"}}, the user who last created or updated it
 * (absent with security off): a push subscription delivers only while its owner may read the topic and the group under
 * the rules in force.
 */
record Subscription(String name, String topic, URI sink, JsonNode filter, Delivery delivery, int visibilitySeconds,
                    Principal owner) {

    static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    static final int DEFAULT_VISIBILITY_SECONDS = 30;
    static final int MAX_VISIBILITY_SECONDS = 12 * 3600;

    /** Knative's DeliverySpec, in milliseconds. */
    record Delivery(int retries, long backoffMillis, boolean exponential, URI deadLetterSink, long timeoutMillis) {
        static final int DEFAULT_PUSH_RETRIES = 3;
        static final int DEFAULT_PULL_RETRIES = 16;
        static final long MAX_BACKOFF_MILLIS = 3_600_000;

        /** The wait before retry number {@code attempt} (0-based): linear d, exponential d * 2^attempt. */
        long backoff(final int attempt) {
            if (!exponential) {
                return backoffMillis;
            }
            final long factor = 1L << Math.min(attempt, 30);
            return Math.min(MAX_BACKOFF_MILLIS, backoffMillis * factor);
        }
    }

    /** Parses and validates a request body; throws a 400 {@link Problem} naming the bad field. */
    static Subscription parse(final String name, final JsonNode body) {
        if (!NAME.matcher(name).matches()) {
            throw Problem.badRequest(null, "subscription name '" + name
                    + "' must be 1-64 letters, digits, '-' or '_'");
        }
        if (body == null || !body.isObject()) {
            throw Problem.badRequest(null, "the subscription must be a JSON object");
        }
        final JsonNode topicNode = body.get("topic");
        // '%' admits the group's own %DLQ%/%RETRY% topics, so dead letters can be pulled.
        if (topicNode == null || !topicNode.isTextual() || topicNode.textValue().isEmpty()
                || !IngressHandler.validTopic(topicNode.textValue().replace('%', '_'))) {
            throw Problem.badRequest("topic", "topic is required: a topic name of letters, digits, '-', '_', '.' "
                    + "(and '%' for system topics such as %DLQ%<subscription>)");
        }
        final URI sink = optionalUri(body, "sink");
        final JsonNode filter = body.get("filter");
        if (filter != null && !filter.isNull()) {
            compileFilter(filter); // validates
        }
        final JsonNode d = body.get("delivery");
        if (d != null && !d.isNull() && !d.isObject()) {
            throw Problem.badRequest("delivery", "delivery must be an object");
        }
        final JsonNode delivery = d == null || d.isNull() ? JsonNodeFactory.instance.objectNode() : d;
        final int retries = intField(delivery, "delivery.retries",
                sink == null ? Delivery.DEFAULT_PULL_RETRIES : Delivery.DEFAULT_PUSH_RETRIES, 0, 100);
        final long backoff = intField(delivery, "delivery.backoffMillis", 1000, 1, 3_600_000);
        final JsonNode policy = delivery.get("backoffPolicy");
        final boolean exponential;
        if (policy == null || policy.isNull()) {
            exponential = true;
        } else if (policy.isTextual() && ("exponential".equals(policy.textValue())
                || "linear".equals(policy.textValue()))) {
            exponential = "exponential".equals(policy.textValue());
        } else {
            throw Problem.badRequest("delivery.backoffPolicy", "backoffPolicy must be \"exponential\" or \"linear\"");
        }
        final URI deadLetter = optionalUri(delivery, "deadLetterSink");
        final long timeout = intField(delivery, "delivery.timeoutMillis", 10_000, 1, 600_000);
        final int visibility = intField(body, "visibilitySeconds", DEFAULT_VISIBILITY_SECONDS, 1,
                MAX_VISIBILITY_SECONDS);
        return new Subscription(name, topicNode.textValue(), sink, filter == null || filter.isNull() ? null : filter,
                new Delivery(retries, backoff, exponential, deadLetter, timeout), visibility, null);
    }

    /** The same subscription, made by {@code creator} (null: nobody is checked, security off). */
    Subscription ownedBy(final Principal creator) {
        return new Subscription(name, topic, sink, filter, delivery, visibilitySeconds, creator);
    }

    boolean push() {
        return sink != null;
    }

    MessageFilter compiledFilter() {
        return filter == null ? MessageFilter.ALL : compileFilter(filter);
    }

    /** Compiles the filter definition; throws a 400 {@link Problem} naming the filter path. */
    static MessageFilter compileFilter(final JsonNode filter) {
        final Object tree;
        if (filter.isObject() && filter.size() == 1 && filter.has("attributes")) {
            tree = knativeAttributes(filter.get("attributes"));
        } else if (filter.isObject() && filter.size() == 1 && filter.has("filters")) {
            tree = plain(filter.get("filters"));
        } else {
            tree = plain(filter);
        }
        try {
            return Filters.cloudEvents(tree, CloudEventMapping::propertyOf);
        } catch (final InvalidFilterException e) {
            throw Problem.badRequest("filter", "invalid filter: " + e.getMessage());
        }
    }

    /** Knative's attribute map: each key present, equal unless the value is empty. */
    private static Object knativeAttributes(final JsonNode attributes) {
        if (attributes == null || !attributes.isObject()) {
            throw Problem.badRequest("filter.attributes", "attributes must be an object of attribute names to values");
        }
        final List<Object> all = new ArrayList<>();
        final Iterator<Map.Entry<String, JsonNode>> it = attributes.properties().iterator();
        while (it.hasNext()) {
            final Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isTextual()) {
                throw Problem.badRequest("filter.attributes." + e.getKey(), "attribute values must be strings");
            }
            if (!EventValidator.isExtensionName(e.getKey())) {
                throw Problem.badRequest("filter.attributes." + e.getKey(), "invalid attribute name");
            }
            if (e.getValue().textValue().isEmpty()) {
                all.add(Map.of("sql", e.getKey() + " IS NOT NULL"));
            } else {
                all.add(Map.of("exact", Map.of(e.getKey(), e.getValue().textValue())));
            }
        }
        return all;
    }

    /** JSON tree to Maps, Lists and Strings, as the core's filter compiler takes it. */
    private static Object plain(final JsonNode node) {
        if (node.isObject()) {
            final Map<String, Object> map = new LinkedHashMap<>();
            node.properties().forEach(e -> map.put(e.getKey(), plain(e.getValue())));
            return map;
        }
        if (node.isArray()) {
            final List<Object> list = new ArrayList<>();
            node.forEach(n -> list.add(plain(n)));
            return list;
        }
        if (node.isNull()) {
            return null;
        }
        return node.isTextual() ? node.textValue() : node.toString();
    }

    /** The JSON document (GET answers and the stored group attribute). */
    ObjectNode toJson(final ObjectMapper json) {
        final ObjectNode n = json.createObjectNode();
        n.put("name", name);
        n.put("topic", topic);
        if (sink != null) {
            n.put("sink", sink.toString());
        }
        if (filter != null) {
            n.set("filter", filter);
        }
        final ObjectNode d = n.putObject("delivery");
        d.put("retries", delivery.retries());
        d.put("backoffMillis", delivery.backoffMillis());
        d.put("backoffPolicy", delivery.exponential() ? "exponential" : "linear");
        if (delivery.deadLetterSink() != null) {
            d.put("deadLetterSink", delivery.deadLetterSink().toString());
        }
        d.put("timeoutMillis", delivery.timeoutMillis());
        n.put("visibilitySeconds", visibilitySeconds);
        if (owner != null) {
            n.putObject("owner").put("user", owner.name()).put("namespace", owner.namespace());
        }
        return n;
    }

    static Subscription fromStored(final String name, final String stored, final ObjectMapper json) {
        try {
            final JsonNode node = json.readTree(stored);
            final JsonNode owner = node.path("owner");
            return parse(name, node).ownedBy(owner.isObject() ? new Principal(owner.path("user").asText(),
                    owner.path("namespace").asText(Principal.DEFAULT_NAMESPACE)) : null);
        } catch (final JsonProcessingException e) {
            throw Problem.badRequest(null, "stored subscription is not JSON: " + e.getOriginalMessage());
        }
    }

    private static URI optionalUri(final JsonNode node, final String field) {
        final JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        final String path = "deadLetterSink".equals(field) ? "delivery.deadLetterSink" : field;
        if (!v.isTextual()) {
            throw Problem.badRequest(path, path + " must be an http URL");
        }
        try {
            final URI uri = new URI(v.textValue());
            if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
                throw Problem.badRequest(path, path + " must be an absolute http:// URL (https sinks are not "
                        + "supported yet)");
            }
            return uri;
        } catch (final URISyntaxException e) {
            throw Problem.badRequest(path, path + " is not a URL: " + e.getMessage());
        }
    }

    private static int intField(final JsonNode node, final String path, final int dflt, final int min,
                                final int max) {
        final String field = path.substring(path.lastIndexOf('.') + 1);
        final JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < min || v.intValue() > max) {
            throw Problem.badRequest(path, path + " must be an integer in " + min + ".." + max);
        }
        return v.intValue();
    }
}
