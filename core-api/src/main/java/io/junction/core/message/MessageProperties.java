package io.junction.core.message;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Property names the core understands, and the property-string codec shared with the RocketMQ wire format.
 *
 * <p>Properties travel and are stored as one string: {@code name \u0001 value \u0002} per entry. Storing them the
 * way RocketMQ clients expect lets a pull answer hand out stored records unchanged.
 */
public final class MessageProperties {
    /** Tag (a single string) used by tag filters; its hash is kept in the queue entry. */
    public static final String TAGS = "TAGS";
    /** Business keys, separated by a single space; each is indexed per topic. */
    public static final String KEYS = "KEYS";
    /** The producer-assigned unique message id. */
    public static final String UNIQUE_ID = "UNIQ_KEY";
    /** The message group of a FIFO message. */
    public static final String MESSAGE_GROUP = "__SHARDINGKEY";
    /** Absolute delivery time in epoch milliseconds. */
    public static final String DELIVER_AT = "TIMER_DELIVER_MS";
    /** RocketMQ delay level 1..18. */
    public static final String DELAY_LEVEL = "DELAY";
    /** Relative delivery delay in seconds (RocketMQ 5 clients). */
    public static final String DELAY_SEC = "TIMER_DELAY_SEC";
    /** Relative delivery delay in milliseconds (RocketMQ 5 clients). */
    public static final String DELAY_MS = "TIMER_DELAY_MS";
    /** On a record parked in a system topic (timers): the topic it is really for. */
    public static final String REAL_TOPIC = "REAL_TOPIC";
    /** On a record parked in a system topic (timers): the queue it is really for. */
    public static final String REAL_QUEUE_ID = "REAL_QID";
    /** MIME type of the body. */
    public static final String CONTENT_TYPE = "CONTENT_TYPE";
    /** "true" on a transaction half message. */
    public static final String TRANSACTION_PREPARED = "TRAN_MSG";
    /** Producer group (transaction check-back target). */
    public static final String PRODUCER_GROUP = "PGROUP";
    /** Transaction id. */
    public static final String TRANSACTION_ID = "__transactionId__";
    /**
     * "true" on a tombstone: a message that deletes its key from a compacted topic (retention does not keep it as
     * the key's latest value). The name is the one the Kafka mapping first gave a record with a null value.
     */
    public static final String TOMBSTONE = "__kafka.null";
    /**
     * Request-reply: where a reply to this message goes. A core topic name (namespace-local, as the requester's
     * clients name it), optionally followed by {@code /} and more MQTT topic levels: {@code replies} names core topic
     * {@code replies}; {@code resp/client-7} names the MQTT topic {@code resp/client-7}, stored in core topic
     * {@code resp} (a {@code /} only ever separates MQTT levels: other characters a core name cannot hold are
     * escaped). MQTT's response topic, JMS's reply-to and RocketMQ's reply topic map onto it.
     */
    public static final String REPLY_TO = "REPLY_TO";
    /**
     * Request-reply: the text a reply carries back so the requester can match it to its request (RocketMQ's name for
     * it). MQTT's correlation data and JMS's correlation id map onto it.
     */
    public static final String CORRELATION_ID = "CORRELATION_ID";
    /** On a retry copy: the topic the message was first sent to. */
    public static final String RETRY_TOPIC = "RETRY_TOPIC";
    /** On a retry copy sent back by a RocketMQ 4 client: the unique id of the message it retries. */
    public static final String ORIGIN_MESSAGE_ID = "ORIGIN_MESSAGE_ID";
    /** On a dead letter: the topic the message was sent to. */
    public static final String DLQ_ORIGIN_TOPIC = "DLQ_ORIGIN_TOPIC";
    /** On a dead letter: the message's unique id. */
    public static final String DLQ_ORIGIN_ID = "DLQ_ORIGIN_MESSAGE_ID";
    /** On a half message: seconds before its first check-back (instead of the check interval). */
    public static final String CHECK_IMMUNITY_SECONDS = "CHECK_IMMUNITY_TIME_IN_SECONDS";
    /** On a half message: check-backs so far (RocketMQ's property; informational, the store counts in op records). */
    public static final String CHECK_TIMES = "TRANSACTION_CHECK_TIMES";

    /**
     * Names the core or RocketMQ's own bookkeeping sets and reads, never a user's property. RocketMQ's request-reply
     * markers {@code MSG_TYPE}, {@code TTL}, {@code ARRIVE_TIME} and {@code PUSH_REPLY_TIME} are not among them: they
     * are names users of other protocols pick too, so only the RocketMQ front-ends hide them.
     */
    private static final Set<String> RESERVED = Set.of(TAGS, KEYS, UNIQUE_ID, MESSAGE_GROUP, DELIVER_AT, DELAY_LEVEL,
            DELAY_SEC, DELAY_MS, REAL_TOPIC, REAL_QUEUE_ID, CONTENT_TYPE, TRANSACTION_PREPARED, PRODUCER_GROUP,
            TRANSACTION_ID, REPLY_TO, CORRELATION_ID, RETRY_TOPIC, ORIGIN_MESSAGE_ID, DLQ_ORIGIN_TOPIC, DLQ_ORIGIN_ID,
            CHECK_IMMUNITY_SECONDS, CHECK_TIMES, "REPLY_TO_CLIENT", "WAIT", "MIN_OFFSET", "MAX_OFFSET",
            "RECONSUME_TIME", "MAX_RECONSUME_TIMES", "CONSUME_START_TIME", "MSG_REGION", "TRACE_ON", "TRACE_CONTEXT",
            "CLUSTER", "INSTANCE_ID", "CORRECTION_FLAG", "POP_CK", "POP_CK_OFFSET", "1ST_POP_TIME", "BUYER_ID",
            "TRAN_PREPARED_QUEUE_OFFSET", "MQ2_FLAG", "BORN_TIMESTAMP", "TIMER_OUT_MS", "TIMER_ENQUEUE_MS",
            "TIMER_DEQUEUE_MS", "TIMER_ROLL_TIMES", "TIMER_DEL_UNIQKEY", "INNER_MULTI_DISPATCH",
            "INNER_MULTI_QUEUE_OFFSET");

    /** {@link #RESERVED}'s names (all ASCII) as bytes, by length: the test of a name still in a record's bytes. */
    private static final byte[][][] RESERVED_BY_LENGTH = byLength(RESERVED);

    static final char NAME_VALUE_SEPARATOR = 1;
    static final char PROPERTY_SEPARATOR = 2;

    private MessageProperties() {
    }

    /**
     * The one rule every protocol mapping applies: a reserved name is never taken from a client as a user property
     * nor shown to one as such. Names starting with {@code __} are the core's and the mappings' own bookkeeping.
     */
    public static boolean isReserved(final String name) {
        return name.startsWith("__") || RESERVED.contains(name);
    }

    /**
     * {@link #isReserved(String)} of the UTF-8 name in {@code bytes[from, to)}, without decoding it: a reserved name is
     * ASCII, so only its own bytes spell it.
     */
    static boolean isReserved(final byte[] bytes, final int from, final int to) {
        final int length = to - from;
        if (length >= 2 && bytes[from] == '_' && bytes[from + 1] == '_') {
            return true;
        }
        if (length >= RESERVED_BY_LENGTH.length) {
            return false;
        }
        for (byte[] name : RESERVED_BY_LENGTH[length]) {
            if (Arrays.equals(bytes, from, to, name, 0, length)) {
                return true;
            }
        }
        return false;
    }

    private static byte[][][] byLength(final Set<String> names) {
        final int longest = names.stream().mapToInt(String::length).max().orElse(0);
        final byte[][][] table = new byte[longest + 1][][];
        for (int length = 0; length <= longest; length++) {
            final int l = length;
            table[length] = names.stream().filter(n -> n.length() == l)
                    .map(n -> n.getBytes(StandardCharsets.US_ASCII)).toArray(byte[][]::new);
        }
        return table;
    }

    /** Encodes properties into the RocketMQ property string; null names or values are skipped. */
    public static String encode(final Map<String, String> properties) {
        if (properties.isEmpty()) {
            return "";
        }
        final StringBuilder sb = new StringBuilder(properties.size() * 24);
        for (Map.Entry<String, String> e : properties.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                continue;
            }
            sb.append(e.getKey()).append(NAME_VALUE_SEPARATOR).append(e.getValue()).append(PROPERTY_SEPARATOR);
        }
        return sb.toString();
    }

    /** Decodes a RocketMQ property string; fragments without a separator are ignored, as the clients do. */
    public static Map<String, String> decode(final String encoded) {
        if (encoded == null || encoded.isEmpty()) {
            return Collections.emptyMap();
        }
        return decode(encoded, new LinkedHashMap<>());
    }

    /**
     * Decodes a RocketMQ property string into {@code map} (a front-end that adds properties of its own passes a map it
     * sized for them, rather than copying the decoded one) and returns it.
     */
    public static Map<String, String> decode(final String encoded, final Map<String, String> map) {
        if (encoded == null) {
            return map;
        }
        int start = 0;
        final int length = encoded.length();
        while (start < length) {
            int end = encoded.indexOf(PROPERTY_SEPARATOR, start);
            if (end < 0) {
                end = length;
            }
            final int sep = encoded.indexOf(NAME_VALUE_SEPARATOR, start);
            if (sep > start && sep < end) {
                map.put(encoded.substring(start, sep), encoded.substring(sep + 1, end));
            }
            start = end + 1;
        }
        return map;
    }

    /**
     * The properties encoded as {@code length} UTF-8 bytes at {@code position} of {@code buffer}, decoded only when
     * first asked for (read-only). The buffer's bytes must not change.
     */
    public static Map<String, String> decodeLazily(final ByteBuffer buffer, final int position, final int length) {
        return length == 0 ? Collections.emptyMap() : new LazyProperties(buffer, position, length);
    }

    /**
     * Whether {@code properties} hold a name that is not {@link #isReserved reserved} (a user property, a header); for
     * a stored message's properties answered from the stored bytes, without decoding the map.
     */
    public static boolean hasUnreservedName(final Map<String, String> properties) {
        if (properties instanceof LazyProperties lazy) {
            return lazy.hasUnreservedName();
        }
        for (String name : properties.keySet()) {
            if (!isReserved(name)) {
                return true;
            }
        }
        return false;
    }

    /** Adds one property to an encoded property string. */
    public static String append(final String encoded, final String name, final String value) {
        return encoded + name + NAME_VALUE_SEPARATOR + value + PROPERTY_SEPARATOR;
    }

    /** True when a name or value would break the encoding (contains a separator character). */
    public static boolean isEncodable(final String text) {
        return text.indexOf(NAME_VALUE_SEPARATOR) < 0 && text.indexOf(PROPERTY_SEPARATOR) < 0;
    }
}
