package io.junction.cloudevents;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.spi.TraceContextProperties;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Map;

/**
 * The one place where a CloudEvent becomes a core message and back.
 *
 * <p>Event to message (ingress):
 * <pre>
 * topic            the path segment of POST /topics/{topic}
 * body             event data (bytes as received; empty when the event has no data)
 * CE_id            id
 * CE_source        source (URI-reference, as text)
 * CE_specversion   specversion (always 1.0)
 * CE_type          type
 * CE_time          time (RFC 3339, as received)
 * CE_subject       subject
 * CE_dataschema    dataschema
 * CE_contenttype   datacontenttype (the name the CloudEvents SDK's RocketMQ binding uses)
 * CONTENT_TYPE     datacontenttype too (the core's content-type property, read by the other front-ends)
 * CE_{extension}   every extension attribute, its value as text, except the Distributed Tracing extension:
 * traceparent      traceparent and tracestate are the canonical trace context properties of every protocol
 * tracestate
 * </pre>
 * The property names are those of the CloudEvents RocketMQ binding ({@code CE_} + attribute name), so a RocketMQ
 * consumer reading a message that arrived over HTTP sees the binary-mode RocketMQ rendering of the event.
 *
 * <p>Message to event (push and pull): a message carrying {@code CE_specversion} is rendered from its {@code CE_}
 * properties (extensions come back as strings). Any other message is rendered as an event with id = the message's
 * unique id (its offset id when it has none), source = {@code <broker base URL>/topics/<topic>}, type = the
 * configured default type, time = the producer's born time, datacontenttype = its {@code CONTENT_TYPE} property,
 * data = body, and every user property whose name is a valid extension name (lower-case a-z, 0-9) as an extension.
 */
public final class CloudEventMapping {
    /** Prefix of the properties carrying attributes. */
    public static final String PREFIX = "CE_";
    /** Property of datacontenttype (RocketMQ binding). */
    public static final String CONTENT_TYPE_PROPERTY = "CE_contenttype";
    public static final String SPECVERSION_PROPERTY = "CE_specversion";

    private final String baseUrl;
    private final String defaultType;

    /**
     * @param baseUrl     the broker's HTTP base URL, e.g. {@code http://127.0.0.1:8080}, for sources of plain messages
     * @param defaultType type of events rendered from plain messages
     */
    public CloudEventMapping(final String baseUrl, final String defaultType) {
        this.baseUrl = baseUrl;
        this.defaultType = defaultType;
    }

    /** The property holding an attribute (used by filters too): {@code datacontenttype -> CE_contenttype}. */
    public static String propertyOf(final String attribute) {
        if (attribute == null || attribute.isEmpty()) {
            return null;
        }
        if ("datacontenttype".equals(attribute)) {
            return CONTENT_TYPE_PROPERTY;
        }
        return PREFIX + attribute;
    }

    /** The attribute a property holds, or null when it holds none. */
    public static String attributeOf(final String property) {
        if (CONTENT_TYPE_PROPERTY.equals(property)) {
            return "datacontenttype";
        }
        if (property.startsWith(PREFIX) && property.length() > PREFIX.length()) {
            return property.substring(PREFIX.length());
        }
        return null;
    }

    /** The core message for a (validated) event sent to {@code topic}. */
    public Message toMessage(final String topic, final CloudEvent event) {
        final Message.Builder b = Message.builder(topic);
        b.body(event.getData() == null ? new byte[0] : event.getData().toBytes());
        b.property(PREFIX + "id", event.getId());
        b.property(PREFIX + "source", event.getSource().toString());
        b.property(SPECVERSION_PROPERTY, event.getSpecVersion().toString());
        b.property(PREFIX + "type", event.getType());
        if (event.getTime() != null) {
            b.property(PREFIX + "time", event.getTime().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        }
        if (event.getSubject() != null) {
            b.property(PREFIX + "subject", event.getSubject());
        }
        if (event.getDataSchema() != null) {
            b.property(PREFIX + "dataschema", event.getDataSchema().toString());
        }
        if (event.getDataContentType() != null) {
            b.property(CONTENT_TYPE_PROPERTY, event.getDataContentType());
            b.property(MessageProperties.CONTENT_TYPE, event.getDataContentType());
        }
        for (final String name : event.getExtensionNames()) {
            final Object value = event.getExtension(name);
            if (value != null) {
                // The Distributed Tracing extension is the message's canonical trace context, read by every protocol.
                b.property(TraceContextProperties.isTraceContext(name) ? name : PREFIX + name, extensionText(value));
            }
        }
        return b.build();
    }

    /** The event for a stored message; {@code receipt} (nullable) is added as the extension {@code receipt}. */
    public CloudEvent toEvent(final StoredMessage message, final String topic, final String receipt) {
        return toEvent(message.properties(), message.bodyBytes(), topic,
                message.uniqueId() != null ? message.uniqueId() : message.offsetMessageId(),
                message.bornTimestamp(), receipt);
    }

    /** The event for a message given by its parts (package-private for table tests). */
    CloudEvent toEvent(final Map<String, String> properties, final byte[] body, final String topic,
                       final String messageId, final long bornTimestamp, final String receipt) {
        final CloudEventBuilder b = CloudEventBuilder.v1();
        if (properties.containsKey(SPECVERSION_PROPERTY)) {
            for (final Map.Entry<String, String> e : properties.entrySet()) {
                final String attribute = attributeOf(e.getKey());
                if (attribute == null || "specversion".equals(attribute)) {
                    continue;
                }
                switch (attribute) {
                    case "id" -> b.withId(e.getValue());
                    case "source" -> b.withSource(URI.create(e.getValue()));
                    case "type" -> b.withType(e.getValue());
                    case "time" -> b.withTime(OffsetDateTime.parse(e.getValue()));
                    case "subject" -> b.withSubject(e.getValue());
                    case "dataschema" -> b.withDataSchema(URI.create(e.getValue()));
                    case "datacontenttype" -> b.withDataContentType(e.getValue());
                    default -> {
                        if (EventValidator.isExtensionName(attribute) && !"receipt".equals(attribute)) {
                            b.withExtension(attribute, e.getValue());
                        }
                    }
                }
            }
            for (final String name : new String[] {TraceContextProperties.TRACEPARENT,
                TraceContextProperties.TRACESTATE}) {
                if (properties.get(name) != null) {
                    b.withExtension(name, properties.get(name));
                }
            }
        } else {
            b.withId(messageId);
            b.withSource(URI.create(baseUrl + "/topics/" + encodePathSegment(topic)));
            b.withType(defaultType);
            b.withTime(OffsetDateTime.ofInstant(Instant.ofEpochMilli(bornTimestamp), ZoneOffset.UTC));
            final String contentType = properties.get(MessageProperties.CONTENT_TYPE);
            if (contentType != null) {
                b.withDataContentType(contentType);
            }
            for (final Map.Entry<String, String> e : properties.entrySet()) {
                if (EventValidator.isExtensionName(e.getKey()) && !EventValidator.isContextAttribute(e.getKey())
                        && !"receipt".equals(e.getKey()) && !MessageProperties.isReserved(e.getKey())) {
                    b.withExtension(e.getKey(), e.getValue());
                }
            }
        }
        if (body.length > 0) {
            b.withData(body);
        }
        if (receipt != null) {
            b.withExtension("receipt", receipt);
        }
        return b.build();
    }

    private static String extensionText(final Object value) {
        if (value instanceof OffsetDateTime t) {
            return t.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        }
        if (value instanceof byte[] bytes) {
            return Base64.getEncoder().encodeToString(bytes);
        }
        return value.toString();
    }

    private static String encodePathSegment(final String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
