package io.junction.remoting;

import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Turns fuzz bytes into what the client sends, by mode, reading the bytes front to back (a missing byte reads as
 * 0). Modes 1 to 3 write up to {@value #MAX_FRAMES} frames, each closed by a body whose length is a u16:
 * <ul>
 * <li>1 (JSON envelope): u16 header length, header bytes, u16 body length, body.</li>
 * <li>2 (ROCKETMQ header): u8 request (index into {@link #REQUESTS}, beyond it a u16 code follows), u8 language,
 * u16 version, u32 opaque, u8 flag, u8 remark length and bytes, u8 ext-field count (mod 17) and per field a u8 key
 * (index into {@link #KEYS}, beyond it a key of that many bytes mod 32) and a u8-long value; then the body.</li>
 * <li>3 (JSON request): u8 request (index mod {@link #REQUESTS}), u8 flag (7 mod 8 makes it oneway), per field of
 * the request one value ({@link #value}); then the body.</li>
 * </ul>
 */
final class RemotingFrameRecipes {
    static final int MAX_FRAMES = 8;
    static final String[] KEYS = {
        "topic", "consumerGroup", "queueId", "queueOffset", "maxMsgNums", "sysFlag", "commitOffset",
        "suspendTimeoutMillis", "subscription", "expressionType", "producerGroup", "clientID", "offset", "group",
        "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "invisibleTime", "extraInfo",
        "timestamp", "transactionId", "msgId", "commitLogOffset", "commitOrRollback", "perm", "readQueueNums",
        "writeQueueNums", "attributes", "key", "namespace", "maxReconsumeTimes", "delayLevel", "properties",
    };
    /** Names and values that mean something to the broker, so one input can make a topic and then use it. */
    static final String[] POOL = {
        "fuzz-topic", "fuzz-group", "fuzz-producer", "fuzz-client", "TBW102", "%RETRY%fuzz-group",
        "%DLQ%fuzz-group", "*", "TAG", "SQL92", "a || b", "a > 1 AND b = 'x'", "-1", "0", "1", "true",
        "UNIQ_KEY\u0001FUZZ0001\u0002TAGS\u0001a\u0002KEYS\u0001k1 k2\u0002", "DELAY\u00013\u0002",
        "TRAN_MSG\u0001true\u0002PGROUP\u0001fuzz-producer\u0002", "TIMER_DELIVER_MS\u00019223372036854775807\u0002",
        "__SHARDINGKEY\u0001g\u0002", "+message.type=FIFO", "0 1 2 3 fuzz-broker 0 0",
    };

    record Request(int code, String... fields) {
    }

    static final Request[] REQUESTS = {
        new Request(RequestCode.SEND_MESSAGE, "producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums",
                "queueId", "sysFlag", "bornTimestamp", "flag", "properties", "reconsumeTimes", "unitMode",
                "maxReconsumeTimes", "batch"),
        new Request(RequestCode.SEND_MESSAGE_V2, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m",
                "n"),
        new Request(RequestCode.SEND_BATCH_MESSAGE, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l",
                "m", "n"),
        new Request(RequestCode.CONSUMER_SEND_MSG_BACK, "offset", "group", "delayLevel", "originMsgId",
                "originTopic", "maxReconsumeTimes"),
        new Request(RequestCode.PULL_MESSAGE, "consumerGroup", "topic", "queueId", "queueOffset", "maxMsgNums",
                "sysFlag", "commitOffset", "suspendTimeoutMillis", "subscription", "subVersion", "expressionType",
                "maxMsgBytes"),
        new Request(RequestCode.LITE_PULL_MESSAGE, "consumerGroup", "topic", "queueId", "queueOffset",
                "maxMsgNums", "sysFlag", "commitOffset", "suspendTimeoutMillis", "subscription", "subVersion",
                "expressionType", "maxMsgBytes"),
        new Request(RequestCode.QUERY_CONSUMER_OFFSET, "consumerGroup", "topic", "queueId", "setZeroIfNotFound"),
        new Request(RequestCode.UPDATE_CONSUMER_OFFSET, "consumerGroup", "topic", "queueId", "commitOffset"),
        new Request(RequestCode.GET_MAX_OFFSET, "topic", "queueId"),
        new Request(RequestCode.GET_MIN_OFFSET, "topic", "queueId"),
        new Request(RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, "topic", "queueId", "timestamp"),
        new Request(RequestCode.GET_EARLIEST_MSG_STORETIME, "topic", "queueId"),
        new Request(RequestCode.HEART_BEAT, "clientID"),
        new Request(RequestCode.UNREGISTER_CLIENT, "clientID", "producerGroup", "consumerGroup"),
        new Request(RequestCode.GET_CONSUMER_LIST_BY_GROUP, "consumerGroup"),
        new Request(RequestCode.CHECK_CLIENT_CONFIG, "clientID"),
        new Request(RequestCode.LOCK_BATCH_MQ, "clientID"),
        new Request(RequestCode.UNLOCK_BATCH_MQ, "clientID"),
        new Request(RequestCode.UPDATE_AND_CREATE_TOPIC, "topic", "readQueueNums", "writeQueueNums", "perm",
                "attributes", "order", "topicFilterType"),
        new Request(RequestCode.DELETE_TOPIC_IN_BROKER, "topic"),
        new Request(RequestCode.DELETE_TOPIC_IN_NAMESRV, "topic"),
        new Request(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP),
        new Request(RequestCode.GET_TOPIC_STATS_INFO, "topic"),
        new Request(RequestCode.GET_CONSUME_STATS, "consumerGroup", "topic"),
        new Request(RequestCode.GET_CONSUMER_CONNECTION_LIST, "consumerGroup"),
        new Request(RequestCode.GET_BROKER_RUNTIME_INFO),
        new Request(RequestCode.QUERY_MESSAGE, "topic", "key", "maxNum", "beginTimestamp", "endTimestamp"),
        new Request(RequestCode.VIEW_MESSAGE_BY_ID, "offset"),
        new Request(222, "topic", "group", "timestamp", "isForce"), // INVOKE_BROKER_TO_RESET_OFFSET
        new Request(351, "topic"), // GET_TOPIC_CONFIG
        new Request(100, "namespace", "key", "value"), // PUT_KV_CONFIG
        new Request(101, "namespace", "key"), // GET_KV_CONFIG
        new Request(400, "topic", "consumerGroup"), // QUERY_ASSIGNMENT
        new Request(RequestCode.POP_MESSAGE, "consumerGroup", "topic", "queueId", "maxMsgNums", "invisibleTime",
                "pollTime", "bornTime", "initMode", "exp", "expType", "order"),
        new Request(RequestCode.ACK_MESSAGE, "consumerGroup", "topic", "queueId", "offset", "extraInfo"),
        new Request(RequestCode.CHANGE_MESSAGE_INVISIBLETIME, "consumerGroup", "topic", "queueId", "offset",
                "extraInfo", "invisibleTime"),
        new Request(RequestCode.END_TRANSACTION, "producerGroup", "tranStateTableOffset", "commitLogOffset",
                "commitOrRollback", "fromTransactionCheck", "msgId", "transactionId"),
        new Request(RequestCode.GET_ROUTEINFO_BY_TOPIC, "topic"),
        new Request(RequestCode.GET_BROKER_CLUSTER_INFO),
        new Request(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER),
    };

    private final byte[] in;
    private int pos;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private int opaque;

    private RemotingFrameRecipes(final byte[] in) {
        this.in = in;
    }

    static byte[] build(final int mode, final byte[] bytes) {
        if (mode == 0) {
            return bytes;
        }
        final RemotingFrameRecipes r = new RemotingFrameRecipes(bytes);
        for (int frames = 0; frames < MAX_FRAMES && r.pos < r.in.length; frames++) {
            switch (mode) {
                case 1 -> r.frame(0, r.bytes(r.u16()), r.bytes(r.u16()));
                case 2 -> r.binaryRequest();
                default -> r.jsonRequest();
            }
        }
        return r.out.toByteArray();
    }

    /**
     * Whether walking the frames' length prefixes reaches a frame the decoder must refuse: a length below 4 or
     * above the cap, an unknown serialize type, a header longer than its frame.
     */
    static boolean breaksFraming(final byte[] bytes, final int maxFrame) {
        final ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.remaining() >= 4) {
            final long length = b.getInt();
            if (length < 4 || length + 4 > maxFrame) {
                return true;
            }
            if (b.remaining() < length) {
                return false; // incomplete: the decoder waits for more
            }
            final int headerInfo = b.getInt();
            if ((headerInfo >>> 24) > 1 || (headerInfo & 0xFFFFFF) > length - 4) {
                return true;
            }
            b.position(b.position() + (int) length - 4);
        }
        return false;
    }

    private void binaryRequest() {
        final int pick = u8();
        final int code = pick < REQUESTS.length ? REQUESTS[pick].code : (short) u16();
        final ByteBuffer header = ByteBuffer.allocate(64 * 1024);
        header.putShort((short) code).put((byte) u8()).putShort((short) u16()).putInt(u32()).putInt(u8());
        final byte[] remark = bytes(u8());
        header.putInt(remark.length).put(remark);
        final int extStart = header.position();
        header.putInt(0);
        final int fields = u8() % 17;
        for (int i = 0; i < fields; i++) {
            final int k = u8();
            final byte[] key = k < KEYS.length ? KEYS[k].getBytes(StandardCharsets.US_ASCII) : bytes(k % 32);
            final byte[] value = bytes(u8());
            header.putShort((short) key.length).put(key).putInt(value.length).put(value);
        }
        header.putInt(extStart, header.position() - extStart - 4);
        frame(1, Arrays.copyOf(header.array(), header.position()), bytes(u16()));
    }

    private void jsonRequest() {
        final Request request = REQUESTS[u8() % REQUESTS.length];
        final int flag = u8() % 8 == 7 ? RemotingCommand.FLAG_ONEWAY : 0;
        final StringBuilder json = new StringBuilder(256).append("{\"code\":").append(request.code)
                .append(",\"extFields\":{");
        boolean first = true;
        for (String field : request.fields) {
            final String value = value();
            if (value != null) {
                json.append(first ? "" : ",");
                quote(json, field).append(':');
                quote(json, value);
                first = false;
            }
        }
        json.append("},\"flag\":").append(flag).append(",\"language\":\"JAVA\",\"opaque\":").append(++opaque)
                .append(",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":479}");
        frame(0, json.toString().getBytes(StandardCharsets.UTF_8), bytes(u16()));
    }

    /**
     * One field value: by a u8 selector mod 6, absent; a {@link #POOL} entry (u8 index); a small int (i8); an int
     * (u32); a long (two u32); a string of u8-many bytes (each byte one character).
     */
    private String value() {
        return switch (u8() % 6) {
            case 0 -> null;
            case 1 -> POOL[u8() % POOL.length];
            case 2 -> Integer.toString((byte) u8());
            case 3 -> Integer.toString(u32());
            case 4 -> Long.toString(((long) u32() << 32) | (u32() & 0xFFFFFFFFL));
            default -> new String(bytes(u8()), StandardCharsets.ISO_8859_1);
        };
    }

    private static StringBuilder quote(final StringBuilder json, final String s) {
        json.append('"');
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c < 0x20) {
                json.append(String.format("\\u%04x", (int) c));
            } else {
                json.append(c);
            }
        }
        return json.append('"');
    }

    private void frame(final int serializeType, final byte[] header, final byte[] body) {
        final ByteBuffer b = ByteBuffer.allocate(8 + header.length + body.length);
        b.putInt(4 + header.length + body.length).putInt((serializeType << 24) | header.length).put(header)
                .put(body);
        out.writeBytes(b.array());
    }

    private int u8() {
        return pos < in.length ? in[pos++] & 0xFF : 0;
    }

    private int u16() {
        return (u8() << 8) | u8();
    }

    private int u32() {
        return (u16() << 16) | u16();
    }

    private byte[] bytes(final int n) {
        final int take = Math.min(n, in.length - pos);
        final byte[] b = Arrays.copyOfRange(in, pos, pos + take);
        pos += take;
        return b;
    }
}
