package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PopStart;
import io.junction.core.PoppedMessage;
import io.junction.core.SystemNames;
import io.junction.core.filter.InvalidFilterException;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.StoredMessage;
import io.junction.remoting.BrokerIdentity;
import io.junction.remoting.protocol.HeaderException;
import io.junction.remoting.protocol.Json;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.remoting.reply.ForeignRequests;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.clients.PopConsumers;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * POP through Remoting (the 5.x Java client with client rebalance off): QUERY_ASSIGNMENT, POP_MESSAGE, ACK_MESSAGE,
 * CHANGE_MESSAGE_INVISIBLETIME.
 *
 * <p>The Remoting client builds its receipt ("extraInfo") itself from the response's offset info and the records'
 * queue id and offset, so the core's sealed receipt handles stay here, keyed by (group, topic, queue id, queue offset)
 * as the client later names the message. A redelivered message comes from the group's retry queue; it is handed out
 * under the requested topic with queue id {@value #RETRY_QUEUE_BASE} + the retry queue's id so its key never collides
 * with a normal queue's.
 */
public final class PopProcessor implements RequestProcessor {
    public static final int QUERY_ASSIGNMENT = 400;
    public static final int POP_MESSAGE = 200050;
    public static final int ACK_MESSAGE = 200051;
    public static final int CHANGE_MESSAGE_INVISIBLETIME = 200053;
    static final int RETRY_QUEUE_BASE = 10_000;
    private static final long HANDLE_SLACK_MILLIS = 60_000;
    private static final int SWEEP_THRESHOLD = 10_000;
    /** POP_MESSAGE {@code initMode} values (RocketMQ's {@code ConsumeInitMode}). */
    private static final int INIT_MODE_MIN = 0;
    private static final int INIT_MODE_MAX = 1;

    private record Key(String group, String topic, int queueId, long offset) {
    }

    private record Handle(String receipt, long expiresAt) {
    }

    private final Messaging messaging;
    private final FilterCache filters;
    private final BrokerIdentity identity;
    private final ForeignRequests foreignRequests;
    private final long maxPollMillis;
    /** Where the console finds this group's POP consumers (they send no heartbeat); by address: no id in the request. */
    private final PopConsumers popConsumers;
    private final Map<Key, Handle> handles = new ConcurrentHashMap<>();

    public PopProcessor(final Messaging messaging, final FilterCache filters, final BrokerIdentity identity,
                        final long maxPollMillis, final PopConsumers popConsumers) {
        this.popConsumers = popConsumers;
        this.messaging = messaging;
        this.filters = filters;
        this.identity = identity;
        this.foreignRequests = new ForeignRequests(identity.clusterName());
        this.maxPollMillis = maxPollMillis;
    }

    @Override
    public CompletableFuture<RemotingCommand> process(final Channel channel, final RemotingCommand request) {
        return switch (request.code()) {
            case QUERY_ASSIGNMENT -> Responses.done(assignment(request));
            case POP_MESSAGE -> pop(channel, request);
            case ACK_MESSAGE -> ack(request);
            case CHANGE_MESSAGE_INVISIBLETIME -> changeInvisibleTime(request);
            default -> Responses.done(Responses.error(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    " request type " + request.code() + " not supported"));
        };
    }

    /** One POP assignment per topic: queue -1, every queue of this broker, balanced by the server. */
    private RemotingCommand assignment(final RemotingCommand request) {
        if (request.body() == null) {
            throw new HeaderException("the request has no body");
        }
        final String topic = Json.text(Json.parse(request.body()), "topic");
        if (topic == null) {
            throw new HeaderException("the assignment request has no topic");
        }
        final List<Object> assignments = new ArrayList<>();
        if (!topic.startsWith(SystemNames.RETRY_PREFIX)) { // the core pops retries together with the topic
            final Map<String, Object> mq = new LinkedHashMap<>();
            mq.put("brokerName", identity.brokerName());
            mq.put("queueId", -1);
            mq.put("topic", topic);
            final Map<String, Object> assignment = new LinkedHashMap<>();
            assignment.put("attachments", Map.of());
            assignment.put("messageQueue", mq);
            assignment.put("mode", "POP");
            assignments.add(assignment);
        }
        return Responses.success(request).body(Json.bytes(Json.write(Map.of("messageQueueAssignments",
                assignments))));
    }

    /**
     * Where a group new to a queue starts, from the header's {@code initMode}: RocketMQ's {@code MAX} (1), which its
     * 5.x push consumer sends unless it consumes from the first offset, or {@code MIN} (0, also when absent).
     */
    private static PopStart start(final RemotingCommand request) {
        return request.intField("initMode", INIT_MODE_MIN) == INIT_MODE_MAX ? PopStart.LATEST : PopStart.OLDEST;
    }

    private CompletableFuture<RemotingCommand> pop(final Channel channel, final RemotingCommand request) {
        final String group = request.requireField("consumerGroup");
        final String topic = request.requireField("topic");
        final int max = request.intField("maxMsgNums", 32);
        if (max < 1 || max > PopRequest.CLIENT_BATCH) {
            return Responses.done(Responses.error(request, ResponseCode.INVALID_PARAMETER,
                    "the broker restrict the max msg nums is " + PopRequest.CLIENT_BATCH));
        }
        final long invisible = request.requireLong("invisibleTime");
        final long poll = Math.max(0, Math.min(request.longField("pollTime", 0), maxPollMillis));
        final MessageFilter filter;
        try {
            filter = filters.get(request.field("expType"), request.field("exp"));
        } catch (InvalidFilterException e) {
            return Responses.done(Responses.error(request, ResponseCode.SUBSCRIPTION_PARSE_FAILED, e.getMessage()));
        }
        if (messaging.route(topic).isEmpty()) {
            return Responses.done(Responses.error(request, ResponseCode.TOPIC_NOT_EXIST,
                    "topic[" + topic + "] not exist, apply first please!"));
        }
        sweep();
        popConsumers.popped(group, "remoting", "", ClientRegistry.address(channel.remoteAddress()));
        final CompletableFuture<PopResult> popped =
                messaging.pop(new PopRequest(group, topic, filter, max, invisible, poll, start(request)));
        // Cancelled when its connection goes away, a parked pop takes no messages for nobody (they would come back
        // only after their invisible time).
        return Responses.cancellingSource(popped, popped.thenApply(result -> respond(request, group, topic,
                invisible, result.messages())));
    }

    @Override
    public boolean waits(final RemotingCommand request) {
        return request.code() == POP_MESSAGE;
    }

    private RemotingCommand respond(final RemotingCommand request, final String group, final String topic,
                                    final long invisible, final List<PoppedMessage> popped) {
        final long now = System.currentTimeMillis();
        if (popped.isEmpty()) {
            return Responses.error(request, ResponseCode.PULL_NOT_FOUND, "NO_MESSAGE_IN_QUEUE")
                    .put("popTime", now).put("invisibleTime", invisible).put("reviveQid", 0).put("restNum", 0);
        }
        final CompositeByteBuf body = Unpooled.compositeBuffer(Math.max(2, popped.size()));
        final Map<Integer, List<Long>> offsets = new TreeMap<>();
        for (PoppedMessage p : popped) {
            final StoredMessage m = p.message();
            final boolean retried = !m.topic().equals(topic);
            final int queueId = retried ? RETRY_QUEUE_BASE + m.queueId() : m.queueId();
            final Map<String, String> asRequest = foreignRequests.rocketMqView(m);
            final ByteBuffer record = retried || asRequest != null ? m.recordAs(retried ? topic : m.topic(),
                    queueId, asRequest != null ? asRequest : m.properties()) : m.record().duplicate();
            body.addComponent(true, Unpooled.wrappedBuffer(record));
            offsets.computeIfAbsent(queueId, q -> new ArrayList<>()).add(m.queueOffset());
            handles.put(new Key(group, topic, queueId, m.queueOffset()),
                    new Handle(p.receiptHandle(), now + invisible + HANDLE_SLACK_MILLIS));
        }
        final StringBuilder start = new StringBuilder();
        final StringBuilder msgs = new StringBuilder();
        for (Map.Entry<Integer, List<Long>> e : offsets.entrySet()) {
            final List<Long> list = e.getValue();
            list.sort(null);
            if (start.length() > 0) {
                start.append(';');
                msgs.append(';');
            }
            start.append("0 ").append(e.getKey()).append(' ').append(list.get(0));
            msgs.append("0 ").append(e.getKey()).append(' ');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    msgs.append(',');
                }
                msgs.append(list.get(i));
            }
        }
        return Responses.success(request).payload(body).remark("FOUND")
                .put("popTime", now).put("invisibleTime", invisible).put("reviveQid", 0).put("restNum", 0)
                .put("startOffsetInfo", start.toString()).put("msgOffsetInfo", msgs.toString());
    }

    private Key keyOf(final RemotingCommand request) {
        return new Key(request.requireField("consumerGroup"), request.requireField("topic"),
                request.requireInt("queueId"), request.requireLong("offset"));
    }

    private CompletableFuture<RemotingCommand> ack(final RemotingCommand request) {
        final Key key = keyOf(request);
        final Handle handle = handles.remove(key);
        if (handle == null) {
            return Responses.done(Responses.error(request, ResponseCode.NO_MESSAGE, "no such popped message"));
        }
        return messaging.ack(key.group(), handle.receipt()).handle((v, e) -> e == null ? Responses.success(request)
                : Responses.error(request, ResponseCode.NO_MESSAGE, "ack failed: " + e.getMessage()));
    }

    private CompletableFuture<RemotingCommand> changeInvisibleTime(final RemotingCommand request) {
        final Key key = keyOf(request);
        final long invisible = request.requireLong("invisibleTime");
        final Handle handle = handles.get(key);
        if (handle == null) {
            return Responses.done(Responses.error(request, ResponseCode.NO_MESSAGE, "no such popped message"));
        }
        return messaging.changeInvisibleTime(key.group(), handle.receipt(), invisible).thenApply(receipt -> {
            final long now = System.currentTimeMillis();
            handles.put(key, new Handle(receipt, now + invisible + HANDLE_SLACK_MILLIS));
            return Responses.success(request).put("popTime", now).put("invisibleTime", invisible)
                    .put("reviveQid", 0);
        });
    }

    /** Forgets handles long past their deadline (the core redelivered those messages under new handles). */
    private void sweep() {
        if (handles.size() < SWEEP_THRESHOLD) {
            return;
        }
        final long now = System.currentTimeMillis();
        for (Iterator<Handle> it = handles.values().iterator(); it.hasNext();) {
            if (it.next().expiresAt() < now) {
                it.remove();
            }
        }
    }
}
