package io.junction.grpc;

import apache.rocketmq.v2.DeadLetterQueue;
import apache.rocketmq.v2.Digest;
import apache.rocketmq.v2.DigestType;
import apache.rocketmq.v2.Encoding;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SystemProperties;
import com.google.protobuf.ByteString;
import com.google.protobuf.Duration;
import com.google.protobuf.Timestamp;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.txn.TransactionMessages;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The one two-way mapping between gRPC v2 messages and the canonical message (rocketmq-wire.md §4.6, "gRPC → internal
 * property mapping"): tag ⇄ {@code TAGS}, keys ⇄ {@code KEYS} (space separated), message_id ⇄ {@code UNIQ_KEY},
 * message_group ⇄ {@code __SHARDINGKEY}, delivery_timestamp ⇄ {@code TIMER_DELIVER_MS}, TRANSACTION ⇄
 * {@code TRAN_MSG=true} with {@code PGROUP} = topic, trace_context ⇄ {@code TRACE_CONTEXT}, born_host ⇄
 * {@code __BORNHOST}, GZIP body ⇄ the COMPRESSED sys flag; user properties ⇄ the other properties.
 */
final class MessageMapping {
    static final String TRACE_CONTEXT = "TRACE_CONTEXT";
    static final String BORN_HOST = "__BORNHOST";
    static final String DLQ_ORIGIN_TOPIC = "DLQ_ORIGIN_TOPIC";
    static final String DLQ_ORIGIN_ID = "DLQ_ORIGIN_MESSAGE_ID";
    static final int COMPRESSED_FLAG = 0x1;
    /** Most user properties one message may carry. */
    static final int MAX_USER_PROPERTIES = 128;

    /** Property names RocketMQ reserves (MessageConst) plus the core's: never user properties. */
    static final Set<String> SYSTEM_PROPERTIES = Set.of(
            MessageProperties.TAGS, MessageProperties.KEYS, MessageProperties.UNIQUE_ID,
            MessageProperties.MESSAGE_GROUP, MessageProperties.DELIVER_AT, MessageProperties.DELAY_LEVEL,
            MessageProperties.DELAY_SEC, MessageProperties.DELAY_MS, MessageProperties.REAL_TOPIC,
            MessageProperties.REAL_QUEUE_ID, MessageProperties.TRANSACTION_PREPARED, MessageProperties.PRODUCER_GROUP,
            MessageProperties.TRANSACTION_ID, TransactionMessages.CHECK_IMMUNITY_SECONDS,
            TransactionMessages.CHECK_TIMES, TRACE_CONTEXT, BORN_HOST, DLQ_ORIGIN_TOPIC, DLQ_ORIGIN_ID,
            "RETRY_TOPIC", "RECONSUME_TIME", "MAX_RECONSUME_TIMES", "ORIGIN_MESSAGE_ID", "1ST_POP_TIME", "POP_CK",
            "POP_CK_OFFSET", "WAIT", "MIN_OFFSET", "MAX_OFFSET", "BUYER_ID", "CLUSTER", "TRAN_PREPARED_QUEUE_OFFSET",
            "CORRECTION_FLAG", "MQ2_FLAG", "INSTANCE_ID", "MSG_REGION", "TRACE_ON", "BORN_TIMESTAMP",
            "TIMER_ENQUEUE_MS", "TIMER_DEQUEUE_MS", "TIMER_ROLL_TIMES", "TIMER_OUT_MS", "TIMER_DEL_UNIQKEY",
            "REPLY_TO_CLIENT", "CORRELATION_ID", "MSG_TYPE", "TTL", "ARRIVE_TIME", "PUSH_REPLY_TIME",
            "INNER_MULTI_DISPATCH", "INNER_MULTI_QUEUE_OFFSET");

    private static final HexFormat HEX = HexFormat.of().withUpperCase();

    private MessageMapping() {
    }

    /**
     * The canonical message for a sent gRPC message; {@code deliverAt} already validated by the caller. A transaction
     * message's first check-back waits for its {@code orphaned_transaction_recovery_duration} when it sets one, else
     * for the store's {@code store.transaction-first-check-ms}.
     */
    static Message toCore(final apache.rocketmq.v2.Message m, final InetSocketAddress peer) {
        final SystemProperties sp = m.getSystemProperties();
        final String topic = ResourceNames.core(m.getTopic());
        final Message.Builder b = Message.builder(topic).body(m.getBody().toByteArray());
        final Map<String, String> props = new LinkedHashMap<>(m.getUserPropertiesMap());
        b.properties(props);
        if (sp.hasTag() && !sp.getTag().isEmpty()) {
            b.tag(sp.getTag());
        }
        if (sp.getKeysCount() > 0) {
            b.keys(String.join(" ", sp.getKeysList()));
        }
        b.uniqueId(sp.getMessageId());
        if (sp.hasMessageGroup() && !sp.getMessageGroup().isEmpty()) {
            b.property(MessageProperties.MESSAGE_GROUP, sp.getMessageGroup());
        }
        if (sp.hasDeliveryTimestamp()) {
            b.property(MessageProperties.DELIVER_AT, Long.toString(millis(sp.getDeliveryTimestamp())));
        }
        if (sp.getMessageType() == MessageType.TRANSACTION) {
            b.property(MessageProperties.TRANSACTION_PREPARED, "true");
            b.property(MessageProperties.PRODUCER_GROUP, topic);
            final long seconds = sp.hasOrphanedTransactionRecoveryDuration()
                    ? sp.getOrphanedTransactionRecoveryDuration().getSeconds() : 0;
            if (seconds > 0) {
                b.property(TransactionMessages.CHECK_IMMUNITY_SECONDS, Long.toString(seconds));
            }
        }
        if (sp.hasTraceContext() && !sp.getTraceContext().isEmpty()) {
            b.property(TRACE_CONTEXT, sp.getTraceContext());
        }
        if (!sp.getBornHost().isEmpty()) {
            b.property(BORN_HOST, sp.getBornHost());
        }
        if (sp.hasBornTimestamp()) {
            b.bornTimestamp(millis(sp.getBornTimestamp()));
        }
        if (sp.getBodyEncoding() == Encoding.GZIP) {
            b.sysFlag(COMPRESSED_FLAG);
        }
        b.bornHost(peer);
        return b.build();
    }

    /** Why a user property key may not be used, or null when it may. */
    static String illegalPropertyKey(final String key) {
        if (key.isEmpty()) {
            return "user property key is empty";
        }
        if (SYSTEM_PROPERTIES.contains(key)) {
            return "user property key '" + key + "' is reserved";
        }
        for (int i = 0; i < key.length(); i++) {
            if (Character.isISOControl(key.charAt(i))) {
                return "user property key contains a control character";
            }
        }
        return null;
    }

    /** The message type a stored message was sent as. */
    static MessageType typeOf(final Map<String, String> props) {
        if ("true".equalsIgnoreCase(props.get(MessageProperties.TRANSACTION_PREPARED))) {
            return MessageType.TRANSACTION;
        }
        if (props.containsKey(MessageProperties.DELIVER_AT) || props.containsKey(MessageProperties.DELAY_MS)
                || props.containsKey(MessageProperties.DELAY_SEC) || props.containsKey(MessageProperties.DELAY_LEVEL)) {
            return MessageType.DELAY;
        }
        if (props.containsKey(MessageProperties.MESSAGE_GROUP)) {
            return MessageType.FIFO;
        }
        return MessageType.NORMAL;
    }

    /**
     * The gRPC message for a delivered (or checked-back) stored message.
     *
     * @param topic         the topic to show (the original one for retries, the real one for half messages)
     * @param receiptHandle the handle, or null
     * @param attempt       delivery attempt, 1 for the first delivery
     */
    static apache.rocketmq.v2.Message toProto(final StoredMessage s, final String topic, final String receiptHandle,
                                             final int attempt, final long invisibleMillis) {
        return toProto(s, Resource.newBuilder().setName(topic).build(), receiptHandle, attempt, invisibleMillis);
    }

    /**
     * The gRPC message for a delivered (or checked-back) stored message, its topic shown as {@code topic} (a client
     * with a namespace expects its namespace apart and the name unwrapped, see {@link ResourceNames#shown}).
     */
    static apache.rocketmq.v2.Message toProto(final StoredMessage s, final Resource topic, final String receiptHandle,
                                             final int attempt, final long invisibleMillis) {
        final Map<String, String> props = s.properties();
        final byte[] body = s.bodyBytes();
        final SystemProperties.Builder sp = SystemProperties.newBuilder();
        final String tag = s.tag();
        if (tag != null && !tag.isEmpty()) {
            sp.setTag(tag);
        }
        final String keys = s.keys();
        if (keys != null) {
            for (String k : keys.split(" ")) {
                if (!k.isEmpty()) {
                    sp.addKeys(k);
                }
            }
        }
        final String uniq = s.uniqueId();
        sp.setMessageId(uniq == null || uniq.isEmpty() ? s.offsetMessageId() : uniq);
        sp.setBodyDigest(Digest.newBuilder().setType(DigestType.MD5).setChecksum(md5(body)));
        sp.setBodyEncoding((s.sysFlag() & COMPRESSED_FLAG) != 0 ? Encoding.GZIP : Encoding.IDENTITY);
        sp.setMessageType(typeOf(props));
        sp.setBornTimestamp(timestamp(s.bornTimestamp()));
        final String bornHost = props.get(BORN_HOST);
        sp.setBornHost(bornHost != null ? bornHost : s.bornHost().getHostString());
        sp.setStoreTimestamp(timestamp(s.storeTimestamp()));
        sp.setStoreHost(s.storeHost().getHostString() + ":" + s.storeHost().getPort());
        final String deliverAt = props.get(MessageProperties.DELIVER_AT);
        if (deliverAt != null) {
            try {
                sp.setDeliveryTimestamp(timestamp(Long.parseLong(deliverAt)));
            } catch (NumberFormatException ignored) {
                // not ours to fix; the message is delivered without it
            }
        }
        if (receiptHandle != null) {
            sp.setReceiptHandle(receiptHandle);
            sp.setInvisibleDuration(duration(invisibleMillis));
        }
        sp.setQueueId(s.queueId());
        sp.setQueueOffset(s.queueOffset());
        sp.setDeliveryAttempt(Math.max(1, attempt));
        final String group = props.get(MessageProperties.MESSAGE_GROUP);
        if (group != null) {
            sp.setMessageGroup(group);
        }
        final String trace = props.get(TRACE_CONTEXT);
        if (trace != null) {
            sp.setTraceContext(trace);
        }
        final String dlqTopic = props.get(DLQ_ORIGIN_TOPIC);
        final String dlqId = props.get(DLQ_ORIGIN_ID);
        if (dlqTopic != null && dlqId != null) {
            sp.setDeadLetterQueue(DeadLetterQueue.newBuilder()
                    .setTopic(ResourceNames.shown(topic.getResourceNamespace(), dlqTopic).getName())
                    .setMessageId(dlqId));
        }
        final apache.rocketmq.v2.Message.Builder m = apache.rocketmq.v2.Message.newBuilder()
                .setTopic(topic)
                .setSystemProperties(sp)
                .setBody(ByteString.copyFrom(body));
        for (Map.Entry<String, String> e : props.entrySet()) {
            if (!SYSTEM_PROPERTIES.contains(e.getKey())) {
                m.putUserProperties(e.getKey(), e.getValue());
            }
        }
        return m.build();
    }

    /** Upper-case hex MD5, as the clients compare it. */
    static String md5(final byte[] body) {
        try {
            return HEX.formatHex(MessageDigest.getInstance("MD5").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is missing from this JVM", e);
        }
    }

    static long millis(final Timestamp t) {
        return t.getSeconds() * 1000 + t.getNanos() / 1_000_000;
    }

    static long millis(final Duration d) {
        return d.getSeconds() * 1000 + d.getNanos() / 1_000_000;
    }

    static Timestamp timestamp(final long millis) {
        return Timestamp.newBuilder().setSeconds(Math.floorDiv(millis, 1000))
                .setNanos((int) Math.floorMod(millis, 1000) * 1_000_000).build();
    }

    static Duration duration(final long millis) {
        return Duration.newBuilder().setSeconds(millis / 1000).setNanos((int) (millis % 1000) * 1_000_000).build();
    }
}
