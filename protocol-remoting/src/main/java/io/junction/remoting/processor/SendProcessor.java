package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.core.SendResult;
import io.junction.core.SystemNames;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.remoting.protocol.HeaderException;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.remoting.reply.RocketMqRequests;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * SEND_MESSAGE, SEND_MESSAGE_V2, SEND_BATCH_MESSAGE and CONSUMER_SEND_MSG_BACK.
 *
 * <p>The message is stored as received: body (possibly compressed, the sys flag says how), flag, sys flag, property
 * string. The core reads delays ({@code DELAY}, {@code TIMER_*}) and transactions ({@code TRAN_MSG}) from the
 * properties. A batch is stored as one unit: a member the store refuses fails the whole batch. A send to {@code %RETRY%group} whose reconsume times passed the maximum goes to {@code %DLQ%group}.
 */
public final class SendProcessor implements RequestProcessor {
    /**
     * The region property RocketMQ's broker stamps on every message it stores: a consumer with message trace on writes
     * its consume records only for messages that carry it (traces of other messages are dropped by the client).
     */
    static final String REGION = "MSG_REGION";
    static final String DEFAULT_REGION = "DefaultRegion";

    private static final int SYS_FLAG_TRANSACTION_MASK = 0xC;
    private static final int DEFAULT_MAX_RECONSUME = Integer.parseInt(SystemTopics.DEFAULT_MAX_RECONSUME);
    private static final String[] TIMER_PROPERTIES = {
        MessageProperties.DELAY_LEVEL, MessageProperties.DELIVER_AT, MessageProperties.DELAY_MS,
        MessageProperties.DELAY_SEC,
    };

    private final Messaging messaging;
    private final SystemTopics systemTopics;
    private final RocketMqRequests requests;

    public SendProcessor(final Messaging messaging, final SystemTopics systemTopics, final RocketMqRequests requests) {
        this.messaging = messaging;
        this.systemTopics = systemTopics;
        this.requests = requests;
    }

    @Override
    public CompletableFuture<RemotingCommand> process(final Channel channel, final RemotingCommand request) {
        if (request.code() == RequestCode.CONSUMER_SEND_MSG_BACK) {
            return sendBack(channel, request);
        }
        final boolean v2 = request.code() != RequestCode.SEND_MESSAGE;
        final SendHeader h = SendHeader.read(request, v2);
        final InetSocketAddress bornHost = address(channel.remoteAddress());
        if (request.code() == RequestCode.SEND_BATCH_MESSAGE) {
            return sendBatch(request, h, bornHost);
        }
        String topic = h.topic;
        final Map<String, String> props = regionStamped(h.properties);
        final String retryGroup = SystemTopics.groupOfRetryTopic(topic);
        if (retryGroup != null && h.reconsumeTimes > h.maxReconsumeTimes) {
            topic = SystemNames.deadLetterTopic(retryGroup);
            for (String p : TIMER_PROPERTIES) {
                props.remove(p);
            }
        }
        final Message message = new Message(topic, h.queueId, body(request), h.flag, props, h.sysFlag,
                h.bornTimestamp, bornHost, h.reconsumeTimes);
        final CompletableFuture<?> ready = topic.startsWith(SystemNames.RETRY_PREFIX)
                || topic.startsWith(SystemNames.DLQ_PREFIX)
                ? systemTopics.ensure(topic) : requests.prepare(channel, topic, props);
        return ready.thenCompose(t -> messaging.send(message)).thenApply(r -> {
            final String txId = props.get(MessageProperties.TRANSACTION_ID);
            return respond(request, r.offsetMessageId(), r.queueId(), r.queueOffset(),
                    txId != null ? txId : r.uniqueId());
        });
    }

    private CompletableFuture<RemotingCommand> sendBatch(final RemotingCommand request, final SendHeader h,
                                                         final InetSocketAddress bornHost) {
        final List<Message> messages = decodeBatch(request.body(), h, bornHost);
        if (messages.isEmpty()) {
            return Responses.done(Responses.error(request, ResponseCode.MESSAGE_ILLEGAL, "the batch is empty"));
        }
        // One unit in the store: every member lands, next to each other in the queue, or none does.
        return messaging.sendBatch(messages).thenApply(results -> {
            final StringBuilder ids = new StringBuilder(results.size() * 33);
            for (SendResult r : results) {
                if (ids.length() > 0) {
                    ids.append(',');
                }
                ids.append(r.offsetMessageId());
            }
            final SendResult first = results.get(0);
            return respond(request, ids.toString(), first.queueId(), first.queueOffset(), first.uniqueId());
        });
    }

    /**
     * Decodes a batch body: per message {@code int32 totalSize | int32 magic | int32 bodyCRC | int32 flag |
     * int32 bodyLen | body | int16 propsLen | props}.
     */
    static List<Message> decodeBatch(final byte[] body, final SendHeader h, final InetSocketAddress bornHost) {
        final List<Message> out = new ArrayList<>();
        if (body == null) {
            return out;
        }
        final ByteBuffer buf = ByteBuffer.wrap(body);
        while (buf.hasRemaining()) {
            if (buf.remaining() < 20) {
                throw new HeaderException("truncated batch record");
            }
            final int start = buf.position();
            final int totalSize = buf.getInt();
            if (totalSize < 22 || totalSize > buf.remaining() + 4) {
                throw new HeaderException("bad batch record size " + totalSize);
            }
            buf.getInt(); // magic
            buf.getInt(); // body CRC
            final int flag = buf.getInt();
            final int bodyLength = buf.getInt();
            if (bodyLength < 0 || bodyLength > start + totalSize - buf.position() - 2) {
                throw new HeaderException("bad batch body length " + bodyLength);
            }
            final byte[] payload = new byte[bodyLength];
            buf.get(payload);
            final int propsLength = buf.getShort() & 0xFFFF;
            if (propsLength > start + totalSize - buf.position()) {
                throw new HeaderException("bad batch properties length " + propsLength);
            }
            final byte[] props = new byte[propsLength];
            buf.get(props);
            buf.position(start + totalSize);
            out.add(new Message(h.topic, h.queueId, payload, flag,
                    regionStamped(new String(props, StandardCharsets.UTF_8)),
                    h.sysFlag, h.bornTimestamp, bornHost, h.reconsumeTimes));
        }
        return out;
    }

    /** The properties of a property string, with the region stamped unless the producer set one. */
    private static Map<String, String> regionStamped(final String encoded) {
        final Map<String, String> props = MessageProperties.decode(encoded, new LinkedHashMap<>(16));
        props.putIfAbsent(REGION, DEFAULT_REGION);
        return props;
    }

    /** The answer to a send that stored its message(s): ids, queue and offset, in the header writer's key order. */
    public static RemotingCommand respond(final RemotingCommand request, final String msgId, final int queueId,
                                          final long queueOffset, final String transactionId) {
        // Put in the header writer's (sorted) key order, so it writes them as they are instead of sorting a copy.
        final Map<String, String> fields = new LinkedHashMap<>(16);
        fields.put(REGION, DEFAULT_REGION);
        // A client with message trace on writes a trace record for a send only when the answer says trace is on: the
        // broker stores and indexes them (RMQ_SYS_TRACE_TOPIC), as RocketMQ's does by default.
        fields.put("TRACE_ON", "true");
        if (msgId != null) {
            fields.put("msgId", msgId);
        }
        fields.put("queueId", Integer.toString(queueId));
        fields.put("queueOffset", Long.toString(queueOffset));
        if (transactionId != null) {
            fields.put("transactionId", transactionId);
        }
        return Responses.success(request).extFields(fields);
    }

    /** CONSUMER_SEND_MSG_BACK: the consumer failed a message; retry it later, or dead-letter it. */
    private CompletableFuture<RemotingCommand> sendBack(final Channel channel, final RemotingCommand request) {
        final long offset = request.requireLong("offset");
        final String group = request.requireField("group");
        final int delayLevel = request.intField("delayLevel", 0);
        final String originMsgId = request.field("originMsgId");
        final int maxReconsume = request.intField("maxReconsumeTimes", DEFAULT_MAX_RECONSUME);
        return messaging.lookup(offset).thenCompose(found -> {
            if (found.isEmpty()) {
                return Responses.done(Responses.error(request, ResponseCode.SYSTEM_ERROR,
                        "look message by offset failed, " + offset));
            }
            final StoredMessage stored = found.get();
            final Map<String, String> props = new LinkedHashMap<>(stored.properties());
            props.putIfAbsent(MessageProperties.RETRY_TOPIC, stored.topic());
            props.putIfAbsent(MessageProperties.ORIGIN_MESSAGE_ID,
                    originMsgId != null ? originMsgId : stored.uniqueId());
            for (String p : TIMER_PROPERTIES) {
                props.remove(p);
            }
            final int times = stored.reconsumeTimes();
            final boolean dead = times >= maxReconsume || delayLevel < 0;
            final String topic = dead ? SystemNames.deadLetterTopic(group) : SystemNames.retryTopic(group);
            if (!dead) {
                props.put(MessageProperties.DELAY_LEVEL, Integer.toString(delayLevel > 0 ? delayLevel : 3 + times));
            }
            final Message retry = new Message(topic, Message.ANY_QUEUE, stored.bodyBytes(), stored.flag(), props,
                    stored.sysFlag() & ~SYS_FLAG_TRANSACTION_MASK, stored.bornTimestamp(), stored.bornHost(),
                    times + 1);
            return systemTopics.ensure(topic).thenCompose(t -> messaging.send(retry))
                    .thenApply(r -> Responses.success(request));
        });
    }

    private static byte[] body(final RemotingCommand request) {
        return request.body() == null ? new byte[0] : request.body();
    }

    static InetSocketAddress address(final SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet : null;
    }

    /** The send header, whichever of the two key sets it came in. */
    static final class SendHeader {
        String producerGroup;
        String topic;
        int queueId;
        int sysFlag;
        long bornTimestamp;
        int flag;
        String properties;
        int reconsumeTimes;
        int maxReconsumeTimes;

        static SendHeader read(final RemotingCommand r, final boolean v2) {
            final HeaderKeys k = v2 ? HeaderKeys.V2 : HeaderKeys.V1;
            final SendHeader h = new SendHeader();
            h.producerGroup = r.field(k.producerGroup);
            h.topic = r.requireField(k.topic);
            h.queueId = r.intField(k.queueId, Message.ANY_QUEUE);
            if (h.queueId < 0) {
                h.queueId = Message.ANY_QUEUE;
            }
            h.sysFlag = r.intField(k.sysFlag, 0);
            h.bornTimestamp = r.longField(k.bornTimestamp, System.currentTimeMillis());
            h.flag = r.intField(k.flag, 0);
            h.properties = r.field(k.properties);
            h.reconsumeTimes = r.intField(k.reconsumeTimes, 0);
            h.maxReconsumeTimes = r.intField(k.maxReconsumeTimes, DEFAULT_MAX_RECONSUME);
            return h;
        }
    }

    /** The header keys of the fields read: SEND_MESSAGE's names, or SEND_MESSAGE_V2's one-letter ones. */
    private record HeaderKeys(String producerGroup, String topic, String queueId, String sysFlag, String bornTimestamp,
                              String flag, String properties, String reconsumeTimes, String maxReconsumeTimes) {
        static final HeaderKeys V1 = new HeaderKeys("producerGroup", "topic", "queueId", "sysFlag", "bornTimestamp",
                "flag", "properties", "reconsumeTimes", "maxReconsumeTimes");
        static final HeaderKeys V2 = new HeaderKeys("a", "b", "e", "f", "g", "h", "i", "j", "l");
    }
}
