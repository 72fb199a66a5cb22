package io.junction.remoting.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads a JSON (type 0) header straight into a command with Jackson's streaming parser: every request of a JSON
 * client passes here, and building a tree first cost more than the rest of decoding. Keys it does not know are
 * skipped; {@code extFields} values are kept as text (a nested value as its JSON text).
 */
final class JsonHeaderReader {
    private static final JsonFactory FACTORY = new JsonFactory();

    private JsonHeaderReader() {
    }

    static void read(final RemotingCommand cmd, final byte[] bytes) {
        try (JsonParser p = FACTORY.createParser(bytes)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new HeaderException("the JSON header is not an object");
            }
            boolean hasCode = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                final String name = p.currentName();
                final JsonToken value = p.nextToken();
                switch (name) {
                    case "code" -> {
                        if (value == JsonToken.VALUE_NULL) {
                            throw new HeaderException("the JSON header has no int code");
                        }
                        cmd.code(intValue(p, value, name));
                        hasCode = true;
                    }
                    case "language" -> cmd.language(value == JsonToken.VALUE_NULL ? "JAVA" : text(p, value));
                    case "version" -> cmd.version(intValue(p, value, name));
                    case "opaque" -> cmd.opaque(intValue(p, value, name));
                    case "flag" -> cmd.flag(intValue(p, value, name));
                    case "remark" -> cmd.remark(value == JsonToken.VALUE_NULL ? null : text(p, value));
                    case "extFields" -> readExtFields(cmd, p, value);
                    default -> p.skipChildren();
                }
            }
            if (!hasCode) {
                throw new HeaderException("the JSON header has no int code");
            }
        } catch (JsonProcessingException e) {
            throw new HeaderException("malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new HeaderException("unreadable JSON: " + e.getMessage());
        }
    }

    private static void readExtFields(final RemotingCommand cmd, final JsonParser p, final JsonToken value)
            throws IOException {
        if (value == JsonToken.VALUE_NULL) {
            return;
        }
        if (value != JsonToken.START_OBJECT) {
            throw new HeaderException("extFields is not an object");
        }
        final Map<String, String> map = new HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            final String key = p.currentName();
            final JsonToken token = p.nextToken();
            if (token != JsonToken.VALUE_NULL) {
                map.put(key, text(p, token));
            }
        }
        cmd.extFields(map);
    }

    /** A scalar's text, or a nested value's compact JSON text. */
    private static String text(final JsonParser p, final JsonToken token) throws IOException {
        if (token.isScalarValue()) {
            return p.getText();
        }
        return Json.readTree(p).toString();
    }

    /** A header int: a JSON number within int range; null counts as 0 (as the field's default). */
    private static int intValue(final JsonParser p, final JsonToken token, final String field) throws IOException {
        if (token == JsonToken.VALUE_NULL) {
            return 0;
        }
        if (token == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT) {
            return p.getIntValue();
        }
        if (token == JsonToken.VALUE_NUMBER_FLOAT) {
            final double d = p.getDoubleValue();
            if (d >= Integer.MIN_VALUE && d <= Integer.MAX_VALUE) {
                return (int) d;
            }
        }
        throw new HeaderException("the JSON header field " + field + " is not an int");
    }
}
