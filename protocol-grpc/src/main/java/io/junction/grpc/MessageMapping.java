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
    static final int COMPRESSED_FLAG = 0x1;
    /** Most user properties one message may carry. */
    static final int MAX_USER_PROPERTIES = 128;

    /**
     * RocketMQ's request-reply markers: reserved for RocketMQ clients (MessageConst) on top of the core's rule, though
     * other protocols' users may name properties so.
     */
    private static final Set<String> REPLY_MARKERS = Set.of("MSG_TYPE", "TTL", "ARRIVE_TIME", "PUSH_REPLY_TIME");

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
                b.property(MessageProperties.CHECK_IMMUNITY_SECONDS, Long.toString(seconds));
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

    static boolean isReserved(final String name) {
        return MessageProperties.isReserved(name) || REPLY_MARKERS.contains(name);
    }

    /** Why a user property key may not be used, or null when it may. */
    static String illegalPropertyKey(final String key) {
        if (key.isEmpty()) {
            return "user property key is empty";
        }
        if (isReserved(key)) {
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
        final String dlqTopic = props.get(MessageProperties.DLQ_ORIGIN_TOPIC);
        final String dlqId = props.get(MessageProperties.DLQ_ORIGIN_ID);
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
            if (!isReserved(e.getKey())) {
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
                .setNanos(Math.floorMod(millis, 1000) * 1_000_000).build();
    }

    static Duration duration(final long millis) {
        return Duration.newBuilder().setSeconds(millis / 1000).setNanos((int) (millis % 1000) * 1_000_000).build();
    }
}
