package io.junction.cloudevents;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.junction.core.message.MessageProperties;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks attributes as the CloudEvents 1.0 spec types them and builds the event. Each check throws a 400
 * {@link Problem} naming the attribute. Used by both content modes: binary mode hands in header values, structured
 * mode JSON values already checked to be strings (or, for extensions, numbers and booleans).
 */
final class EventValidator {
    static final String SPEC_VERSION = "1.0";
    static final Set<String> CONTEXT_ATTRIBUTES =
            Set.of("id", "source", "specversion", "type", "datacontenttype", "dataschema", "subject", "time");

    private static final Pattern RFC3339 = Pattern.compile(
            "\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})");

    private final CloudEventBuilder builder = CloudEventBuilder.v1();
    private boolean hasId;
    private boolean hasSource;
    private boolean hasType;
    private boolean hasSpecVersion;

    static boolean isExtensionName(final String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            final char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9')) {
                return false;
            }
        }
        return true;
    }

    static boolean isContextAttribute(final String name) {
        return CONTEXT_ATTRIBUTES.contains(name);
    }

    /** One attribute given as text (a header value, or a JSON string). */
    EventValidator attribute(final String name, final String value) {
        if (!isExtensionName(name)) {
            throw Problem.badRequest(name, "invalid attribute name '" + name
                    + "': attribute names are lower-case letters a-z and digits 0-9");
        }
        if (!MessageProperties.isEncodable(value)) {
            throw Problem.badRequest(name, "attribute '" + name + "' contains a control character U+0001/U+0002");
        }
        switch (name) {
            case "specversion" -> {
                if (!SPEC_VERSION.equals(value)) {
                    throw Problem.badRequest(name, "unsupported specversion '" + value + "': expected 1.0");
                }
                hasSpecVersion = true;
            }
            case "id" -> {
                builder.withId(nonEmpty(name, value));
                hasId = true;
            }
            case "source" -> {
                builder.withSource(uriReference(name, nonEmpty(name, value)));
                hasSource = true;
            }
            case "type" -> {
                builder.withType(nonEmpty(name, value));
                hasType = true;
            }
            case "subject" -> builder.withSubject(nonEmpty(name, value));
            case "datacontenttype" -> builder.withDataContentType(nonEmpty(name, value));
            case "dataschema" -> {
                final URI uri = uriReference(name, nonEmpty(name, value));
                if (!uri.isAbsolute()) {
                    throw Problem.badRequest(name, "dataschema '" + value + "' is not an absolute URI");
                }
                builder.withDataSchema(uri);
            }
            case "time" -> builder.withTime(time(value));
            default -> builder.withExtension(name, value);
        }
        return this;
    }

    /** An extension attribute given as a JSON number (integers only) or boolean. */
    EventValidator extension(final String name, final Object value) {
        if (!isExtensionName(name)) {
            throw Problem.badRequest(name, "invalid attribute name '" + name
                    + "': attribute names are lower-case letters a-z and digits 0-9");
        }
        if (isContextAttribute(name)) {
            throw Problem.badRequest(name, "attribute '" + name + "' must be a string");
        }
        if (value instanceof Boolean b) {
            builder.withExtension(name, b);
        } else if (value instanceof Integer n) {
            builder.withExtension(name, n);
        } else {
            throw Problem.badRequest(name, "extension '" + name
                    + "' must be a string, a boolean or an integer (-2^31..2^31-1)");
        }
        return this;
    }

    EventValidator data(final byte[] data) {
        builder.withData(data);
        return this;
    }

    /** The event, once the required attributes are all there. */
    CloudEvent build() {
        if (!hasSpecVersion) {
            throw Problem.badRequest("specversion", "missing required attribute 'specversion'");
        }
        if (!hasId) {
            throw Problem.badRequest("id", "missing required attribute 'id'");
        }
        if (!hasSource) {
            throw Problem.badRequest("source", "missing required attribute 'source'");
        }
        if (!hasType) {
            throw Problem.badRequest("type", "missing required attribute 'type'");
        }
        return builder.build();
    }

    private static String nonEmpty(final String name, final String value) {
        if (value.isEmpty()) {
            throw Problem.badRequest(name, "attribute '" + name + "' must not be empty");
        }
        return value;
    }

    private static URI uriReference(final String name, final String value) {
        try {
            return new URI(value);
        } catch (final URISyntaxException e) {
            throw Problem.badRequest(name, "attribute '" + name + "' is not a URI-reference: " + e.getMessage());
        }
    }

    static OffsetDateTime time(final String value) {
        if (!RFC3339.matcher(value).matches()) {
            throw Problem.badRequest("time", "time '" + value + "' is not an RFC 3339 timestamp");
        }
        try {
            return OffsetDateTime.parse(value.toUpperCase(Locale.ROOT),
                    DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        } catch (final DateTimeParseException e) {
            throw Problem.badRequest("time", "time '" + value + "' is not an RFC 3339 timestamp: " + e.getMessage());
        }
    }
}
