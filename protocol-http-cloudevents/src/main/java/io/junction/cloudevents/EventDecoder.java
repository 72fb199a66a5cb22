package io.junction.cloudevents;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Turns a {@code POST /topics/{topic}} request into validated events, following the CloudEvents HTTP binding:
 * <ul>
 *   <li>{@code application/cloudevents+json}: structured mode, one event in the JSON event format;</li>
 *   <li>{@code application/cloudevents-batch+json}: a JSON array of such events (all validated before any is
 *   stored);</li>
 *   <li>any other request carrying {@code ce-} headers: binary mode; {@code Content-Type} is datacontenttype, the body
 *   the data, each {@code ce-<name>} header (percent-decoded) an attribute;</li>
 *   <li>anything else, or another {@code application/cloudevents} format: 415.</li>
 * </ul>
 * Failures throw a {@link Problem}.
 */
final class EventDecoder {
    static final String STRUCTURED = "application/cloudevents+json";
    static final String BATCH = "application/cloudevents-batch+json";
    private static final String CE_FORMAT_PREFIX = "application/cloudevents";
    private static final String HEADER_PREFIX = "ce-";

    private final ObjectMapper json;
    private final int maxDataBytes;
    private final int maxBatchEvents;

    EventDecoder(final ObjectMapper json, final int maxDataBytes, final int maxBatchEvents) {
        this.json = json;
        this.maxDataBytes = maxDataBytes;
        this.maxBatchEvents = maxBatchEvents;
    }

    List<CloudEvent> decode(final FullHttpRequest request) {
        final String contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE);
        final String mediaType = mediaType(contentType);
        if (mediaType != null && mediaType.startsWith(CE_FORMAT_PREFIX)) {
            if (STRUCTURED.equals(mediaType)) {
                return List.of(structured(parse(request.content())));
            }
            if (BATCH.equals(mediaType)) {
                return batch(parse(request.content()));
            }
            throw new Problem(HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, null, "unsupported event format '"
                    + mediaType + "': expected " + STRUCTURED + " or " + BATCH);
        }
        if (!hasCeHeader(request)) {
            throw new Problem(HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, null, "not a CloudEvent: send ce-* headers "
                    + "(binary mode), " + STRUCTURED + " or " + BATCH + " (content type was "
                    + (contentType == null ? "none" : "'" + contentType + "'") + ")");
        }
        return List.of(binary(request, contentType));
    }

    static String mediaType(final String contentType) {
        if (contentType == null) {
            return null;
        }
        final int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }

    private static boolean hasCeHeader(final FullHttpRequest request) {
        final Iterator<Map.Entry<CharSequence, CharSequence>> it = request.headers().iteratorCharSequence();
        while (it.hasNext()) {
            if (startsWithIgnoreCase(it.next().getKey(), HEADER_PREFIX)) {
                return true;
            }
        }
        return false;
    }

    private CloudEvent binary(final FullHttpRequest request, final String contentType) {
        final EventValidator event = new EventValidator();
        final Set<String> seen = new HashSet<>();
        final Iterator<Map.Entry<CharSequence, CharSequence>> it = request.headers().iteratorCharSequence();
        while (it.hasNext()) {
            final Map.Entry<CharSequence, CharSequence> header = it.next();
            if (!startsWithIgnoreCase(header.getKey(), HEADER_PREFIX)) {
                continue;
            }
            final String name = header.getKey().toString().substring(HEADER_PREFIX.length()).toLowerCase(Locale.ROOT);
            if (!seen.add(name)) {
                throw Problem.badRequest(name, "header ce-" + name + " appears more than once");
            }
            if ("datacontenttype".equals(name)) {
                throw Problem.badRequest(name, "binary mode carries datacontenttype in Content-Type, "
                        + "not in a ce-datacontenttype header");
            }
            event.attribute(name, headerValue(name, header.getValue().toString()));
        }
        if (contentType != null && !contentType.isEmpty()) {
            event.attribute("datacontenttype", contentType);
        }
        final ByteBuf body = request.content();
        if (body.readableBytes() > maxDataBytes) {
            throw tooLarge(body.readableBytes());
        }
        if (body.isReadable()) {
            event.data(ByteBufUtil.getBytes(body));
        }
        return event.build();
    }

    /** Unquotes a quoted-string, then percent-decodes (UTF-8, strict), as the HTTP binding says. */
    static String headerValue(final String name, final String raw) {
        String value = raw.trim();
        if (value.length() >= 2 && value.charAt(0) == '"' && value.charAt(value.length() - 1) == '"') {
            final StringBuilder sb = new StringBuilder(value.length());
            for (int i = 1; i < value.length() - 1; i++) {
                char c = value.charAt(i);
                if (c == '\\' && i + 1 < value.length() - 1) {
                    c = value.charAt(++i);
                }
                sb.append(c);
            }
            value = sb.toString();
        }
        if (value.indexOf('%') < 0) {
            return value;
        }
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length());
        for (int i = 0; i < value.length(); i++) {
            final char c = value.charAt(i);
            if (c == '%') {
                if (i + 2 >= value.length()) {
                    throw Problem.badRequest(name, "header ce-" + name + " has a truncated percent-encoding");
                }
                final int hi = Character.digit(value.charAt(i + 1), 16);
                final int lo = Character.digit(value.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw Problem.badRequest(name, "header ce-" + name + " has an invalid percent-encoding");
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else {
                final byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(b, 0, b.length);
            }
        }
        try {
            final CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()));
            return chars.toString();
        } catch (final CharacterCodingException e) {
            throw Problem.badRequest(name, "header ce-" + name + " is not valid UTF-8 after percent-decoding");
        }
    }

    private JsonNode parse(final ByteBuf body) {
        try {
            return json.readTree((InputStream) new ByteBufInputStream(body.duplicate()));
        } catch (final JsonProcessingException e) {
            throw Problem.badRequest(null, "malformed JSON: " + e.getOriginalMessage());
        } catch (final IOException e) {
            throw Problem.badRequest(null, "unreadable JSON: " + e.getMessage());
        }
    }

    private List<CloudEvent> batch(final JsonNode node) {
        if (node == null || !node.isArray()) {
            throw Problem.badRequest(null, "a batch must be a JSON array of events");
        }
        if (node.size() > maxBatchEvents) {
            throw new Problem(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, null, "a batch holds at most "
                    + maxBatchEvents + " events; this one has " + node.size());
        }
        final List<CloudEvent> events = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            try {
                events.add(structured(node.get(i)));
            } catch (final Problem p) {
                throw p.at(i);
            }
        }
        return events;
    }

    private CloudEvent structured(final JsonNode node) {
        if (node == null || !node.isObject()) {
            throw Problem.badRequest(null, "an event must be a JSON object");
        }
        final EventValidator event = new EventValidator();
        JsonNode data = null;
        JsonNode dataBase64 = null;
        String contentType = null;
        final Iterator<Map.Entry<String, JsonNode>> fields = node.properties().iterator();
        while (fields.hasNext()) {
            final Map.Entry<String, JsonNode> f = fields.next();
            final String name = f.getKey();
            final JsonNode value = f.getValue();
            if ("data".equals(name)) {
                data = value;
                continue;
            }
            if ("data_base64".equals(name)) {
                dataBase64 = value;
                continue;
            }
            if (value.isNull()) {
                continue; // JSON null: the attribute is absent
            }
            if (value.isTextual()) {
                event.attribute(name, value.textValue());
                if ("datacontenttype".equals(name)) {
                    contentType = value.textValue();
                }
            } else if (value.isBoolean()) {
                event.extension(name, value.booleanValue());
            } else if (value.isIntegralNumber() && value.canConvertToInt()) {
                event.extension(name, value.intValue());
            } else {
                if (EventValidator.isContextAttribute(name)) {
                    throw Problem.badRequest(name, "attribute '" + name + "' must be a string");
                }
                event.extension(name, value);
            }
        }
        if (data != null && dataBase64 != null && !data.isNull() && !dataBase64.isNull()) {
            throw Problem.badRequest("data_base64", "an event carries either data or data_base64, not both");
        }
        final byte[] bytes;
        if (dataBase64 != null && !dataBase64.isNull()) {
            if (!dataBase64.isTextual()) {
                throw Problem.badRequest("data_base64", "data_base64 must be a string");
            }
            try {
                bytes = Base64.getDecoder().decode(dataBase64.textValue());
            } catch (final IllegalArgumentException e) {
                throw Problem.badRequest("data_base64", "data_base64 is not valid base64: " + e.getMessage());
            }
        } else if (data != null && !data.isNull()) {
            if (data.isTextual() && !isJson(contentType)) {
                bytes = data.textValue().getBytes(StandardCharsets.UTF_8);
            } else {
                try {
                    bytes = json.writeValueAsBytes(data);
                } catch (final JsonProcessingException e) {
                    throw Problem.badRequest("data", "data cannot be serialized: " + e.getOriginalMessage());
                }
            }
        } else {
            bytes = null;
        }
        if (bytes != null) {
            if (bytes.length > maxDataBytes) {
                throw tooLarge(bytes.length);
            }
            event.data(bytes);
        }
        return event.build();
    }

    /** JSON data: no content type (the JSON format's default), application/json or any +json type. */
    static boolean isJson(final String contentType) {
        final String media = mediaType(contentType);
        return media == null || media.equals("application/json") || media.endsWith("+json")
                || media.equals("text/json");
    }

    private Problem tooLarge(final int size) {
        return new Problem(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "data", "event data of " + size
                + " bytes is larger than the limit of " + maxDataBytes + " bytes");
    }

    private static boolean startsWithIgnoreCase(final CharSequence s, final String prefix) {
        if (s.length() < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (Character.toLowerCase(s.charAt(i)) != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
