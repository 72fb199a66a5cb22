package io.junction.remoting.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;

/**
 * JSON for headers and bodies. Writing is by hand into compact, standard JSON (quoted keys, no spaces), which
 * fastjson and the Go client's hand parser both read; reading goes through Jackson's tree model.
 */
public final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /**
     * fastjson writes the keys of a map whose keys are not strings unquoted ({@code {0:[...]}}): bodies holding such
     * maps (a static topic's {@code hostedQueues}) are read with this one.
     */
    private static final ObjectMapper FASTJSON_MAPPER = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES).build();

    private Json() {
    }

    /** Parses JSON bytes; throws {@link HeaderException} when they are not JSON. */
    public static JsonNode parse(final byte[] bytes) {
        return parse(MAPPER, bytes);
    }

    /** Parses fastjson's JSON, which may have unquoted keys of non-string maps; {@link HeaderException} otherwise. */
    public static JsonNode parseFastjson(final byte[] bytes) {
        return parse(FASTJSON_MAPPER, bytes);
    }

    private static JsonNode parse(final ObjectMapper mapper, final byte[] bytes) {
        try {
            final JsonNode node = mapper.readTree(bytes);
            if (node == null) {
                throw new HeaderException("empty JSON");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new HeaderException("malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new HeaderException("unreadable JSON: " + e.getMessage());
        }
    }

    /** UTF-8 bytes of a JSON text. */
    public static byte[] bytes(final CharSequence json) {
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Appends a JSON string literal. */
    public static StringBuilder string(final StringBuilder sb, final String s) {
        if (s == null) {
            return sb.append("null");
        }
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"');
    }

    /** Appends a value: null, String, Number, Boolean, Map (string keys), Collection or {@link Raw}. */
    public static StringBuilder value(final StringBuilder sb, final Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof Raw r) {
            sb.append(r.json());
        } else if (v instanceof String s) {
            string(sb, s);
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                string(sb, String.valueOf(e.getKey())).append(':');
                value(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof Collection<?> c) {
            sb.append('[');
            boolean first = true;
            for (Object o : c) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                value(sb, o);
            }
            sb.append(']');
        } else {
            string(sb, v.toString());
        }
        return sb;
    }

    /** The JSON text of a value. */
    public static String write(final Object v) {
        return value(new StringBuilder(128), v).toString();
    }

    /** Already-serialized JSON, written verbatim. */
    public record Raw(String json) {
    }

    /** A text field of an object node, or null. */
    public static String text(final JsonNode node, final String field) {
        final JsonNode v = node == null ? null : node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }
}
