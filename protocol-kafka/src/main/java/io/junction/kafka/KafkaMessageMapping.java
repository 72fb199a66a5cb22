package io.junction.kafka;

import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * The one place Kafka records map to and from the canonical message.
 *
 * <table>
 * <caption>Kafka record ↔ core message</caption>
 * <tr><th>Kafka</th><th>core</th></tr>
 * <tr><td>topic, partition, offset</td><td>topic, queue id, queue offset</td></tr>
 * <tr><td>value</td><td>body; a null value (tombstone) is an empty body with {@value #NULL_VALUE}=true</td></tr>
 * <tr><td>key</td><td>UTF-8 text: {@code KEYS} and the message group ({@code __SHARDINGKEY}, so FIFO consumers keep
 *     per-key order); other bytes: {@value #BINARY_KEY} (base64), also the message group</td></tr>
 * <tr><td>timestamp</td><td>born timestamp</td></tr>
 * <tr><td>headers</td><td>user properties, same name, value as UTF-8 text; when a header cannot be one (a repeated or
 *     reserved name, a null or non-text value, a separator character), all headers travel in {@value #HEADERS}
 *     (base64, exact order and bytes) and the representable ones still as user properties</td></tr>
 * </table>
 *
 * <p>A core message sent by another protocol becomes a record whose key is its {@code KEYS} (else its message group),
 * whose headers are its non-reserved properties, and whose timestamp is its born timestamp.
 */
final class KafkaMessageMapping {
    static final String NULL_VALUE = MessageProperties.TOMBSTONE;
    static final String BINARY_KEY = "__kafka.key";
    static final String HEADERS = "__kafka.headers";

    private KafkaMessageMapping() {
    }

    /** Whether a property name is the core's or a mapping's own, never a header. */
    static boolean isReserved(final String name) {
        return MessageProperties.isReserved(name);
    }

    /** A batch whose first message also carries {@code name}={@code value} (the front-end's marks, never headers). */
    static List<Message> withFirstProperty(final List<Message> batch, final String name, final String value) {
        final List<Message> out = new ArrayList<>(batch);
        final Message m = batch.get(0);
        final Map<String, String> properties = new LinkedHashMap<>(m.properties());
        properties.put(name, value);
        out.set(0, new Message(m.topic(), m.queueId(), m.body(), m.flag(), properties, m.sysFlag(),
                m.bornTimestamp(), m.bornHost(), m.reconsumeTimes()));
        return out;
    }

    /** The core message for a record produced to {@code queueId} of {@code coreTopic}. */
    static Message toCore(final String coreTopic, final int queueId, final KafkaRecord record, final long now) {
        final Message.Builder b = Message.builder(coreTopic).queueId(queueId)
                .body(record.value() == null ? new byte[0] : record.value())
                .bornTimestamp(record.timestamp() >= 0 ? record.timestamp() : now);
        if (record.value() == null) {
            b.property(NULL_VALUE, "true");
        }
        if (record.key() != null) {
            final String text = text(record.key());
            if (text != null) {
                b.keys(text).property(MessageProperties.MESSAGE_GROUP, text);
            } else {
                final String encoded = Base64.getEncoder().encodeToString(record.key());
                b.property(BINARY_KEY, encoded).property(MessageProperties.MESSAGE_GROUP, encoded);
            }
        }
        boolean exact = true;
        final Set<String> names = record.headers().isEmpty() ? Set.of() : new HashSet<>();
        for (Header h : record.headers()) {
            final String value = h.value() == null ? null : text(h.value());
            if (value != null && !h.key().isEmpty() && !isReserved(h.key())
                    && MessageProperties.isEncodable(h.key()) && names.add(h.key())) {
                b.property(h.key(), value);
            } else {
                exact = false;
            }
        }
        if (!exact) {
            b.property(HEADERS, encodeHeaders(record.headers()));
        }
        return b.build();
    }

    /** The record a core message maps to (its key, value, timestamp and headers). */
    static KafkaRecord fromCore(final Map<String, String> properties, final byte[] body, final long bornTimestamp) {
        return new KafkaRecord(key(properties), isTombstone(properties) ? null : body, bornTimestamp,
                headers(properties));
    }

    /** The record a stored message is fetched as: as {@link #fromCore}, its value a view of the stored body. */
    static FetchedRecord fetched(final StoredMessage m) {
        final Map<String, String> properties = m.properties();
        return new FetchedRecord(m.queueOffset(), m.bornTimestamp(), key(properties),
                isTombstone(properties) ? null : m.body(), headers(properties));
    }

    private static boolean isTombstone(final Map<String, String> properties) {
        return "true".equals(properties.get(NULL_VALUE));
    }

    private static List<Header> headers(final Map<String, String> properties) {
        final String encodedHeaders = properties.get(HEADERS);
        final List<Header> exact = encodedHeaders == null ? null : decodeHeaders(encodedHeaders);
        if (exact != null) {
            return exact;
        }
        if (!MessageProperties.hasUnreservedName(properties)) {
            // Most records have none: for a stored message this is answered from its bytes, no property map built.
            return List.of();
        }
        List<Header> headers = List.of();
        for (Map.Entry<String, String> e : properties.entrySet()) {
            if (!isReserved(e.getKey())) {
                if (headers.isEmpty()) {
                    headers = new ArrayList<>();
                }
                headers.add(new RecordHeader(e.getKey(), e.getValue().getBytes(StandardCharsets.UTF_8)));
            }
        }
        return headers;
    }

    private static byte[] key(final Map<String, String> properties) {
        final String binary = properties.get(BINARY_KEY);
        if (binary != null) {
            try {
                return Base64.getDecoder().decode(binary);
            } catch (IllegalArgumentException notOurs) {
                // fall through to the text forms
            }
        }
        final String keys = properties.get(MessageProperties.KEYS);
        if (keys != null) {
            return keys.getBytes(StandardCharsets.UTF_8);
        }
        final String group = properties.get(MessageProperties.MESSAGE_GROUP);
        return group == null ? null : group.getBytes(StandardCharsets.UTF_8);
    }

    /** The bytes as text when they are well-formed UTF-8 a property may hold, else null. */
    static String text(final byte[] bytes) {
        try {
            final String s = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
            return MessageProperties.isEncodable(s) ? s : null;
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** Headers as base64 of: count, then per header its UTF-8 name (length-prefixed) and value (length or -1). */
    static String encodeHeaders(final List<Header> headers) {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(headers.size());
            for (Header h : headers) {
                final byte[] name = h.key().getBytes(StandardCharsets.UTF_8);
                out.writeInt(name.length);
                out.write(name);
                if (h.value() == null) {
                    out.writeInt(-1);
                } else {
                    out.writeInt(h.value().length);
                    out.write(h.value());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Base64.getEncoder().encodeToString(bytes.toByteArray());
    }

    /** The headers {@link #encodeHeaders} wrote, or null when the text is not such an encoding. */
    static List<Header> decodeHeaders(final String encoded) {
        final byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(encoded);
        } catch (IllegalArgumentException e) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            final int count = in.readInt();
            if (count < 0 || count > bytes.length) {
                return null;
            }
            final List<Header> headers = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                final byte[] name = readBytes(in, bytes.length);
                final byte[] value = readBytes(in, bytes.length);
                if (name == null) {
                    return null;
                }
                headers.add(new RecordHeader(new String(name, StandardCharsets.UTF_8), value));
            }
            return in.available() == 0 ? headers : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Length-prefixed bytes; null for the length -1. */
    private static byte[] readBytes(final DataInputStream in, final int limit) throws IOException {
        final int length = in.readInt();
        if (length == -1) {
            return null;
        }
        if (length < 0 || length > limit) {
            throw new IOException("length " + length + " out of range");
        }
        final byte[] b = new byte[length];
        in.readFully(b);
        return b;
    }
}
