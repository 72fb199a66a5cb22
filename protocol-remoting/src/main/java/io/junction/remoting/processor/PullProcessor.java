package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.filter.InvalidFilterException;
import io.junction.core.filter.MessageFilter;
import io.junction.core.group.ConsumerClient;
import io.junction.core.message.StoredMessage;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.remoting.reply.ForeignRequests;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * PULL_MESSAGE and LITE_PULL_MESSAGE: read a queue from an offset, long-polling when asked, and answer with the
 * stored records themselves (wrapped, not copied) as the body.
 */
public final class PullProcessor implements RequestProcessor {
    static final int FLAG_COMMIT_OFFSET = 0x1;
    static final int FLAG_SUSPEND = 0x2;
    static final int FLAG_SUBSCRIPTION = 0x4;
    /** Body cap when the client does not send {@code maxMsgBytes}. */
    private static final int DEFAULT_MAX_BYTES = 4 << 20;

    private final Messaging messaging;
    private final FilterCache filters;
    private final ForeignRequests foreignRequests;
    private final long maxSuspendMillis;

    public PullProcessor(final Messaging messaging, final FilterCache filters, final ForeignRequests foreignRequests,
                         final long maxSuspendMillis) {
        this.messaging = messaging;
        this.filters = filters;
        this.foreignRequests = foreignRequests;
        this.maxSuspendMillis = maxSuspendMillis;
    }

    @Override
    public CompletableFuture<RemotingCommand> process(final Channel channel, final RemotingCommand request) {
        final String group = request.requireField("consumerGroup");
        final String topic = request.requireField("topic");
        final int queueId = request.requireInt("queueId");
        final long offset = request.requireLong("queueOffset");
        final int maxMessages = Math.max(1, Math.min(request.intField("maxMsgNums", 32), 1024));
        final int sysFlag = request.intField("sysFlag", 0);
        final long commitOffset = request.longField("commitOffset", -1);
        final long suspend = request.longField("suspendTimeoutMillis", 0);
        final int maxBytes = request.intField("maxMsgBytes", DEFAULT_MAX_BYTES) <= 0 ? DEFAULT_MAX_BYTES
                : Math.min(request.intField("maxMsgBytes", DEFAULT_MAX_BYTES), DEFAULT_MAX_BYTES);

        if ((sysFlag & FLAG_COMMIT_OFFSET) != 0 && commitOffset >= 0) {
            messaging.commitOffset(group, topic, queueId, commitOffset);
        }
        final MessageFilter filter;
        try {
            filter = filter(request, group, topic, sysFlag);
        } catch (InvalidFilterException e) {
            return Responses.done(Responses.error(request, ResponseCode.SUBSCRIPTION_PARSE_FAILED, e.getMessage()));
        }
        if (messaging.route(topic).isEmpty()) {
            return Responses.done(Responses.error(request, ResponseCode.TOPIC_NOT_EXIST,
                    "topic[" + topic + "] not exist, apply first please!"));
        }
        final long wait = (sysFlag & FLAG_SUSPEND) != 0 ? Math.max(0, Math.min(suspend, maxSuspendMillis)) : 0;
        // The response is written where the store read the records, from the memory it lends them in: one copy into
        // the response's direct buffer (a heap copy per record, and Netty's copy of it into direct memory to write
        // it, before).
        return messaging.pullLent(new PullRequest(group, topic, queueId, offset, maxMessages, filter, wait),
                result -> respond(channel.alloc(), request, result, maxBytes), PullProcessor::release);
    }

    private static void release(final RemotingCommand unclaimed) {
        if (unclaimed.payload() != null) {
            unclaimed.payload().release();
        }
    }

    @Override
    public boolean waits(final RemotingCommand request) {
        return true;
    }

    private MessageFilter filter(final RemotingCommand request, final String group, final String topic,
                                 final int sysFlag) {
        final String subscription = request.field("subscription");
        if ((sysFlag & FLAG_SUBSCRIPTION) != 0 && subscription != null) {
            return filters.get(request.field("expressionType"), subscription);
        }
        for (ConsumerClient client : messaging.consumers().clients(group)) {
            final ConsumerClient.Subscription s = client.subscriptions().get(topic);
            if (s != null) {
                return filters.get(s.type(), s.expression());
            }
        }
        return MessageFilter.ALL;
    }

    /** The response to a pull whose messages are lent: their records are copied into a direct buffer of its own. */
    private RemotingCommand respond(final ByteBufAllocator alloc, final RemotingCommand request,
                                    final PullResult result, final int maxBytes) {
        final RemotingCommand response;
        long next = result.nextOffset();
        switch (result.status()) {
            case FOUND -> {
                response = Responses.success(request);
                final List<StoredMessage> messages = result.messages();
                final List<ByteBuffer> records = new ArrayList<>(messages.size());
                int bytes = 0;
                for (int i = 0; i < messages.size(); i++) {
                    final StoredMessage m = messages.get(i);
                    if (i > 0 && bytes + m.size() > maxBytes) {
                        next = m.queueOffset();
                        break;
                    }
                    final Map<String, String> asRequest = foreignRequests.rocketMqView(m);
                    final ByteBuffer record = asRequest == null ? m.record().duplicate()
                            : m.recordAs(m.topic(), m.queueId(), asRequest);
                    records.add(record);
                    bytes += record.remaining();
                }
                final ByteBuf body = alloc.directBuffer(bytes);
                for (int i = 0; i < records.size(); i++) {
                    body.writeBytes(records.get(i));
                }
                response.payload(body);
            }
            case NO_NEW_MESSAGE -> response = Responses.error(request, ResponseCode.PULL_NOT_FOUND, "NO_NEW_MESSAGE");
            case NO_MATCHED_MESSAGE -> response = Responses.error(request, ResponseCode.PULL_RETRY_IMMEDIATELY,
                    "NO_MATCHED_MESSAGE");
            case OFFSET_TOO_SMALL, OFFSET_OVERFLOW -> response = Responses.error(request,
                    ResponseCode.PULL_OFFSET_MOVED, result.status().name());
            default -> response = Responses.error(request, ResponseCode.SYSTEM_ERROR,
                    "queue " + request.field("queueId") + " of topic " + request.field("topic") + " does not exist");
        }
        return response.put("suggestWhichBrokerId", 0)
                .put("nextBeginOffset", next)
                .put("minOffset", result.minOffset())
                .put("maxOffset", result.maxOffset());
    }
}
