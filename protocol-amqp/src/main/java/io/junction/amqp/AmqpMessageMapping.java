package io.junction.amqp;

import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.spi.ReplyAddress;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedByte;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.DeliveryAnnotations;
import org.apache.qpid.proton.amqp.messaging.Footer;
import org.apache.qpid.proton.amqp.messaging.Header;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.amqp.messaging.Properties;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecodeException;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.codec.ReadableBuffer;

/**
 * The one place AMQP 1.0 messages map to and from the canonical message. One instance per connection (the proton-j
 * codec keeps state); not thread-safe.
 *
 * <table>
 * <caption>AMQP section or field ↔ core message</caption>
 * <tr><th>AMQP</th><th>core</th></tr>
 * <tr><td>target address, or {@code to} on an anonymous-relay link</td><td>topic ({@link AddressNames})</td></tr>
 * <tr><td>data section(s)</td><td>body (the bytes)</td></tr>
 * <tr><td>amqp-value holding a string</td><td>body = its UTF-8 bytes, {@value #BODY}={@code text}</td></tr>
 * <tr><td>any other amqp-value / amqp-sequence sections</td><td>body = the encoded sections,
 *     {@value #BODY}={@code value} / {@code sequence}</td></tr>
 * <tr><td>header durable (absent means false, as in AMQP) / priority / ttl</td><td>{@value #DURABLE}={@code false}
 *     when not durable (a message from another protocol is durable), {@value #PRIORITY}, {@value #TTL}</td></tr>
 * <tr><td>header delivery-count (outgoing)</td><td>the core's reconsume times</td></tr>
 * <tr><td>message-id</td><td>{@code UNIQ_KEY} (non-string ids with the JMS mapping's {@code AMQP_*:} prefixes);
 *     a message without one gets the core's id</td></tr>
 * <tr><td>correlation-id</td><td>the canonical {@code CORRELATION_ID} (non-string ids with the {@code AMQP_*:}
 *     prefixes)</td></tr>
 * <tr><td>reply-to</td><td>the canonical reply-to address {@code REPLY_TO}: the address's core name; an address
 *     naming MQTT levels ({@link ReplyAddress}) goes out as that MQTT topic</td></tr>
 * <tr><td>subject, user-id, content-encoding, group-sequence, reply-to-group-id</td>
 *     <td>{@code amqp.subject}, ... (same names)</td></tr>
 * <tr><td>content-type</td><td>{@code CONTENT_TYPE}</td></tr>
 * <tr><td>group-id</td><td>message group ({@code __SHARDINGKEY})</td></tr>
 * <tr><td>creation-time</td><td>born timestamp</td></tr>
 * <tr><td>absolute-expiry-time, or now + ttl</td><td>{@value #EXPIRES_AT} (epoch ms); expired messages are not
 *     delivered</td></tr>
 * <tr><td>application-properties</td><td>user properties, same names; non-string types in {@value #TYPES}</td></tr>
 * <tr><td>message-annotations {@code x-opt-delivery-time} / {@code x-opt-delivery-delay}</td><td>deliver-at
 *     ({@code TIMER_DELIVER_MS})</td></tr>
 * <tr><td>other message-annotations</td><td>{@value #ANNOTATION_PREFIX}{@code <symbol>}</td></tr>
 * <tr><td>delivery-annotations, footer</td><td>dropped</td></tr>
 * </table>
 *
 * <p>A core message from another protocol (no {@value #BODY}) becomes a data section holding its body, with its
 * content type; Qpid JMS presents it as a {@code BytesMessage}, or a {@code TextMessage} when the content type is
 * text. Its non-reserved properties (tag and keys included, as {@code TAGS}/{@code KEYS}) become
 * application-properties.
 */
final class AmqpMessageMapping {
    static final String BODY = "amqp.body";
    static final String TYPES = "amqp.types";
    static final String DURABLE = "amqp.durable";
    static final String PRIORITY = "amqp.priority";
    static final String TTL = "amqp.ttl";
    static final String EXPIRES_AT = "amqp.expires-at";
    static final String CORRELATION_ID = MessageProperties.CORRELATION_ID;
    static final String SUBJECT = "amqp.subject";
    static final String USER_ID = "amqp.user-id";
    static final String CONTENT_ENCODING = "amqp.content-encoding";
    static final String GROUP_SEQUENCE = "amqp.group-sequence";
    static final String REPLY_TO_GROUP_ID = "amqp.reply-to-group-id";
    static final String ANNOTATION_PREFIX = "amqp.ma.";
    /** MQTT's expiry property: honoured so expired MQTT messages are not delivered over AMQP either. */
    static final String MQTT_EXPIRES_AT = "mqtt.expires.at";

    static final Symbol DELIVERY_TIME = Symbol.valueOf("x-opt-delivery-time");
    static final Symbol DELIVERY_DELAY = Symbol.valueOf("x-opt-delivery-delay");

    /** Core and RocketMQ system property names: never application-properties, never taken from them. */
    private final DecoderImpl decoder = new DecoderImpl();
    private final EncoderImpl encoder = new EncoderImpl(decoder);

    AmqpMessageMapping() {
        AMQPDefinedTypes.registerAllTypes(decoder, encoder);
    }

    /**
     * An incoming message decoded and mapped, before it has a topic.
     *
     * @param to           the {@code to} field (the destination of an anonymous-relay link), or null
     * @param creationTime creation-time, or 0
     */
    record Inbound(String to, byte[] body, Map<String, String> properties, long creationTime, int size) {

        /** The canonical message for {@code topic}. */
        Message toMessage(final String topic, final int queueId, final long now) {
            return Message.builder(topic).queueId(queueId).body(body).properties(properties)
                    .bornTimestamp(creationTime > 0 ? creationTime : now).build();
        }

        /** The message's deliver-at time, or 0. */
        long deliverAt() {
            final String at = properties.get(MessageProperties.DELIVER_AT);
            return at == null ? 0 : Long.parseLong(at);
        }
    }

    /** The core's rule, except that tags and keys are shown (as {@code TAGS}/{@code KEYS}) for JMS selectors. */
    static boolean isReserved(final String name) {
        return name.startsWith("amqp.") || MessageProperties.isReserved(name)
                && !MessageProperties.TAGS.equals(name) && !MessageProperties.KEYS.equals(name);
    }

    // ------------------------------------------------------------------------------------------------ inbound

    /**
     * The next section, from untrusted bytes: whatever proton-j's decoder throws means the message is malformed. Its
     * fast-path map decoders (application-properties, annotations) dereference a null value constructor when a value
     * has an unknown type code: a NullPointerException, not a DecodeException.
     */
    private Object readSection() throws MalformedMessageException {
        try {
            return decoder.readObject();
        } catch (RuntimeException e) {
            throw new MalformedMessageException(AmqpErrors.DECODE_ERROR, "malformed message: " + e.getMessage());
        }
    }

    /** Decodes an encoded AMQP message (the bytes of one transfer). */
    Inbound toCore(final byte[] bytes, final int length, final long now) throws MalformedMessageException {
        final ReadableBuffer buffer = ReadableBuffer.ByteBufferReader.wrap(ByteBuffer.wrap(bytes, 0, length));
        decoder.setBuffer(buffer);
        final Map<String, String> props = new LinkedHashMap<>();
        final StringBuilder types = new StringBuilder();
        String to = null;
        long creation = 0;
        boolean durable = false; // AMQP's default when the header or its field is absent
        long ttl = -1;
        long expiresAt = 0;
        byte[] body = null;
        int bodyKind = 0; // 0 none/data, 1 text, 2 value, 3 sequence
        int bodyStart = -1;
        int bodyEnd = -1;
        try {
            while (buffer.hasRemaining()) {
                final int start = buffer.position();
                final Object section = readSection();
                if (section instanceof Header h) {
                    durable = Boolean.TRUE.equals(h.getDurable());
                    if (h.getPriority() != null) {
                        props.put(PRIORITY, h.getPriority().toString());
                    }
                    if (h.getTtl() != null) {
                        ttl = h.getTtl().longValue();
                        props.put(TTL, Long.toString(ttl));
                    }
                } else if (section instanceof DeliveryAnnotations || section instanceof Footer) {
                    continue; // hop-by-hop or trailing: not part of what is stored
                } else if (section instanceof MessageAnnotations ma) {
                    annotations(ma, props, types, now);
                } else if (section instanceof Properties p) {
                    to = p.getTo();
                    creation = p.getCreationTime() == null ? 0 : p.getCreationTime().getTime();
                    expiresAt = p.getAbsoluteExpiryTime() == null ? 0 : p.getAbsoluteExpiryTime().getTime();
                    properties(p, props);
                } else if (section instanceof ApplicationProperties ap) {
                    applicationProperties(ap, props, types);
                } else if (section instanceof Data d) {
                    if (bodyKind > 1) {
                        throw new MalformedMessageException(AmqpErrors.DECODE_ERROR, "mixed body sections");
                    }
                    body = concat(body, d.getValue());
                } else if (section instanceof AmqpValue v) {
                    if (body != null || bodyKind != 0) {
                        throw new MalformedMessageException(AmqpErrors.DECODE_ERROR, "more than one body section");
                    }
                    if (v.getValue() instanceof String s) {
                        body = s.getBytes(StandardCharsets.UTF_8);
                        bodyKind = 1;
                    } else {
                        bodyKind = 2;
                        bodyStart = start;
                        bodyEnd = buffer.position();
                    }
                } else if (section instanceof AmqpSequence) {
                    if (body != null || bodyKind == 1 || bodyKind == 2) {
                        throw new MalformedMessageException(AmqpErrors.DECODE_ERROR, "mixed body sections");
                    }
                    bodyKind = 3;
                    bodyStart = bodyStart < 0 ? start : bodyStart;
                    bodyEnd = buffer.position();
                } else {
                    throw new MalformedMessageException(AmqpErrors.DECODE_ERROR,
                            "not a message section: " + (section == null ? "null" : section.getClass().getSimpleName()));
                }
            }
        } catch (DecodeException | IllegalArgumentException | IllegalStateException | ClassCastException
                 | IndexOutOfBoundsException | BufferUnderflowException e) {
            throw new MalformedMessageException(AmqpErrors.DECODE_ERROR, "malformed message: " + e.getMessage());
        } finally {
            decoder.setBuffer(null);
        }
        if (!durable) {
            props.put(DURABLE, "false");
        }
        if (bodyKind >= 2) {
            body = Arrays.copyOfRange(bytes, bodyStart, bodyEnd);
            props.put(BODY, bodyKind == 2 ? "value" : "sequence");
        } else if (bodyKind == 1) {
            props.put(BODY, "text");
        }
        if (expiresAt == 0 && ttl > 0) {
            expiresAt = (creation > 0 ? creation : now) + ttl;
        }
        if (expiresAt > 0) {
            props.put(EXPIRES_AT, Long.toString(expiresAt));
        }
        if (types.length() > 0) {
            props.put(TYPES, types.toString());
        }
        for (Map.Entry<String, String> e : props.entrySet()) {
            if (!MessageProperties.isEncodable(e.getKey()) || !MessageProperties.isEncodable(e.getValue())) {
                throw new MalformedMessageException(AmqpErrors.INVALID_FIELD,
                        "property " + e.getKey() + " holds the characters U+0001 or U+0002");
            }
        }
        return new Inbound(to, body == null ? new byte[0] : body, props, creation, length);
    }

    private static byte[] concat(final byte[] before, final Binary more) {
        if (more == null) {
            return before == null ? new byte[0] : before;
        }
        final int offset = before == null ? 0 : before.length;
        final byte[] out = new byte[offset + more.getLength()];
        if (before != null) {
            System.arraycopy(before, 0, out, 0, offset);
        }
        System.arraycopy(more.getArray(), more.getArrayOffset(), out, offset, more.getLength());
        return out;
    }

    private static void annotations(final MessageAnnotations ma, final Map<String, String> props,
                                    final StringBuilder types, final long now) throws MalformedMessageException {
        if (ma.getValue() == null) {
            return;
        }
        long deliverAt = 0;
        for (Map.Entry<Symbol, Object> e : ma.getValue().entrySet()) {
            final Object key = e.getKey();
            final Object v = e.getValue();
            if (DELIVERY_TIME.equals(key)) {
                deliverAt = time(v);
            } else if (DELIVERY_DELAY.equals(key)) {
                if (deliverAt == 0 && time(v) > 0) {
                    deliverAt = now + time(v);
                }
            } else if (key != null && v != null) {
                put(ANNOTATION_PREFIX + key, v, props, types);
            }
        }
        if (deliverAt > now) {
            props.put(MessageProperties.DELIVER_AT, Long.toString(deliverAt));
        }
    }

    private static long time(final Object v) throws MalformedMessageException {
        if (v instanceof Date d) {
            return d.getTime();
        } else if (v instanceof Number n) {
            return n.longValue();
        }
        throw new MalformedMessageException(AmqpErrors.INVALID_FIELD, "delivery time is not a number or timestamp");
    }

    private static void properties(final Properties p, final Map<String, String> props) {
        if (p.getMessageId() != null) {
            props.put(MessageProperties.UNIQUE_ID, TypedValues.idText(p.getMessageId()));
        }
        if (p.getCorrelationId() != null) {
            props.put(CORRELATION_ID, TypedValues.idText(p.getCorrelationId()));
        }
        if (p.getUserId() != null) {
            props.put(USER_ID, TypedValues.text(p.getUserId()));
        }
        putText(props, SUBJECT, p.getSubject());
        if (p.getReplyTo() != null) {
            putText(props, MessageProperties.REPLY_TO, AddressNames.toCore(p.getReplyTo()));
        }
        putText(props, MessageProperties.CONTENT_TYPE, p.getContentType() == null ? null : p.getContentType().toString());
        putText(props, CONTENT_ENCODING, p.getContentEncoding() == null ? null
                : p.getContentEncoding().toString());
        putText(props, MessageProperties.MESSAGE_GROUP, p.getGroupId());
        if (p.getGroupSequence() != null) {
            props.put(GROUP_SEQUENCE, p.getGroupSequence().toString());
        }
        putText(props, REPLY_TO_GROUP_ID, p.getReplyToGroupId());
    }

    private static void putText(final Map<String, String> props, final String name, final String value) {
        if (value != null) {
            props.put(name, value);
        }
    }

    private static void applicationProperties(final ApplicationProperties ap, final Map<String, String> props,
                                              final StringBuilder types) {
        if (ap.getValue() == null) {
            return;
        }
        for (Map.Entry<?, ?> e : ((Map<?, ?>) ap.getValue()).entrySet()) {
            if (!(e.getKey() instanceof String name) || e.getValue() == null || isReserved(name)) {
                continue; // the spec wants string keys; reserved names would change what the core does
            }
            put(name, e.getValue(), props, types);
        }
    }

    private static void put(final String name, final Object v, final Map<String, String> props,
                            final StringBuilder types) {
        final char code = TypedValues.codeOf(v);
        if (code == '?') {
            return; // lists, maps, described values: no JMS property can hold them
        }
        props.put(name, TypedValues.text(v));
        if (code != TypedValues.STRING && name.indexOf(',') < 0 && name.indexOf(':') < 0) {
            if (types.length() > 0) {
                types.append(',');
            }
            types.append(code).append(':').append(name);
        }
    }

    // ------------------------------------------------------------------------------------------------ outbound

    /**
     * Encodes a stored message for delivery into {@code out} (reset first).
     *
     * @param address       the address the consumer attached to ({@code to} of the delivered message)
     * @param deliveryCount deliveries before this one (header delivery-count)
     */
    void toAmqp(final StoredMessage m, final String address, final int deliveryCount, final GrowableBuffer out) {
        out.reset();
        encoder.setByteBuffer(out);
        final Map<String, String> props = m.properties();
        final Map<String, Character> types = TypedValues.codes(props.get(TYPES));

        final Header header = new Header();
        header.setDurable(!"false".equals(props.get(DURABLE)));
        final String priority = props.get(PRIORITY);
        if (priority != null) {
            header.setPriority(UnsignedByte.valueOf((byte) clampPriority(priority)));
        }
        final String ttl = props.get(TTL);
        if (ttl != null) {
            header.setTtl(UnsignedInteger.valueOf(Math.max(0, Math.min(0xFFFFFFFFL, parseLong(ttl)))));
        }
        if (deliveryCount > 0) {
            header.setDeliveryCount(UnsignedInteger.valueOf(deliveryCount));
        }
        encoder.writeObject(header);

        Map<Symbol, Object> annotations = null;
        final String deliverAt = props.get(MessageProperties.DELIVER_AT);
        if (deliverAt != null) {
            annotations = new LinkedHashMap<>();
            annotations.put(DELIVERY_TIME, parseLong(deliverAt));
        }
        for (Map.Entry<String, String> e : props.entrySet()) {
            if (e.getKey().startsWith(ANNOTATION_PREFIX)) {
                if (annotations == null) {
                    annotations = new LinkedHashMap<>();
                }
                annotations.put(Symbol.valueOf(e.getKey().substring(ANNOTATION_PREFIX.length())),
                        TypedValues.typed(e.getKey(), e.getValue(), types));
            }
        }
        if (annotations != null) {
            encoder.writeObject(new MessageAnnotations(annotations));
        }

        final Properties p = new Properties();
        final String id = props.get(MessageProperties.UNIQUE_ID);
        p.setMessageId(id != null ? TypedValues.id(id) : m.offsetMessageId());
        p.setTo(address);
        p.setCorrelationId(TypedValues.id(props.get(CORRELATION_ID)));
        final String user = props.get(USER_ID);
        if (user != null) {
            final Object u = TypedValues.value('x', user);
            p.setUserId(u instanceof Binary b ? b : null);
        }
        p.setSubject(props.get(SUBJECT));
        final String replyTo = props.get(MessageProperties.REPLY_TO);
        if (replyTo != null) {
            p.setReplyTo(ReplyAddress.hasLevels(replyTo) ? ReplyAddress.topicName(replyTo)
                    : AddressNames.toAddress(replyTo));
        }
        final String contentType = props.get(MessageProperties.CONTENT_TYPE);
        p.setContentType(contentType == null ? null : Symbol.valueOf(contentType));
        final String encoding = props.get(CONTENT_ENCODING);
        p.setContentEncoding(encoding == null ? null : Symbol.valueOf(encoding));
        final long expiresAt = expiresAt(props);
        if (expiresAt > 0) {
            p.setAbsoluteExpiryTime(new Date(expiresAt));
        }
        p.setCreationTime(new Date(m.bornTimestamp()));
        p.setGroupId(props.get(MessageProperties.MESSAGE_GROUP));
        final String seq = props.get(GROUP_SEQUENCE);
        if (seq != null) {
            p.setGroupSequence(UnsignedInteger.valueOf(Math.max(0, Math.min(0xFFFFFFFFL, parseLong(seq)))));
        }
        p.setReplyToGroupId(props.get(REPLY_TO_GROUP_ID));
        encoder.writeObject(p);

        Map<String, Object> application = null;
        for (Map.Entry<String, String> e : props.entrySet()) {
            if (!isReserved(e.getKey())) {
                if (application == null) {
                    application = new LinkedHashMap<>();
                }
                application.put(e.getKey(), TypedValues.typed(e.getKey(), e.getValue(), types));
            }
        }
        if (application != null) {
            encoder.writeObject(new ApplicationProperties(application));
        }

        final String kind = props.get(BODY);
        final ByteBuffer body = m.body().duplicate();
        if ("text".equals(kind)) {
            encoder.writeObject(new AmqpValue(StandardCharsets.UTF_8.decode(body).toString()));
        } else if ("value".equals(kind) || "sequence".equals(kind)) {
            out.put(body); // already encoded sections
        } else {
            writeData(body, out); // straight from the stored record: no copy of the body on the way out
        }
        encoder.setByteBuffer((ByteBuffer) null);
    }

    /** A data section (descriptor 0x75) holding {@code body}: vbin8 below 256 bytes, else vbin32. */
    private static void writeData(final ByteBuffer body, final GrowableBuffer out) {
        final int length = body.remaining();
        out.put((byte) 0x00);
        out.put((byte) 0x53);
        out.put((byte) 0x75);
        if (length < 256) {
            out.put((byte) 0xA0);
            out.put((byte) length);
        } else {
            out.put((byte) 0xB0);
            out.putInt(length);
        }
        out.put(body);
    }

    /** When the message expires (epoch ms), or 0 when it does not. */
    static long expiresAt(final Map<String, String> props) {
        String at = props.get(EXPIRES_AT);
        if (at == null) {
            at = props.get(MQTT_EXPIRES_AT);
        }
        return at == null ? 0 : parseLong(at);
    }

    private static int clampPriority(final String text) {
        return (int) Math.max(0, Math.min(255, parseLong(text)));
    }

    private static long parseLong(final String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
