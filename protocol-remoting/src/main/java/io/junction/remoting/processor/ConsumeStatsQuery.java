package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.core.group.ConsumerClient;
import io.junction.core.group.QueueLag;
import io.junction.remoting.BrokerIdentity;
import io.junction.remoting.protocol.Json;
import io.junction.remoting.protocol.RemotingCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * GET_CONSUME_STATS ({@code mqadmin consumerProgress}, {@code examineConsumeStats}): per queue the broker offset, the
 * group's committed offset and the store time of the last message it consumed, from the committed offsets, so a group
 * whose consumers all left is reported as well as an online one; and the group's consume rate over the last minute.
 *
 * <p>The topics, as RocketMQ 5.3 brokers choose them: the request's {@code topicList} when given; else its
 * {@code topic}, or every topic the group committed offsets on or its online consumers subscribe to; of those, while
 * consumers are online, only the topics they subscribe to.
 */
final class ConsumeStatsQuery {
    private final Messaging messaging;
    private final BrokerIdentity identity;

    ConsumeStatsQuery(final Messaging messaging, final BrokerIdentity identity) {
        this.messaging = messaging;
        this.identity = identity;
    }

    CompletableFuture<RemotingCommand> answer(final RemotingCommand request) {
        final String group = request.requireField("consumerGroup");
        final List<CompletableFuture<String>> parts = new ArrayList<>();
        double tps = 0;
        for (String topic : topics(group, request.field("topic"), request.field("topicList"))) {
            if (messaging.route(topic).isPresent()) {
                parts.add(messaging.consumers().lag(group, topic).thenApply(lags -> entries(topic, lags)));
                tps += messaging.statistics().consumeTps(group, topic);
            }
        }
        final double consumeTps = tps;
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v -> {
            final StringBuilder sb = new StringBuilder("{\"consumeTps\":").append(consumeTps)
                    .append(",\"offsetTable\":{");
            for (CompletableFuture<String> part : parts) {
                final String entries = part.join();
                if (!entries.isEmpty()) {
                    sb.append(sb.charAt(sb.length() - 1) == '{' ? "" : ",").append(entries);
                }
            }
            return Responses.success(request).body(Json.bytes(sb.append("}}")));
        });
    }

    private Set<String> topics(final String group, final String topic, final String topicList) {
        final Set<String> topics = new TreeSet<>();
        if (topicList != null && !topicList.isBlank()) {
            for (String t : topicList.split(";")) {
                if (!t.isBlank()) {
                    topics.add(t.trim());
                }
            }
            return topics;
        }
        final Set<String> subscribed = new TreeSet<>();
        for (ConsumerClient c : messaging.consumers().clients(group)) {
            subscribed.addAll(c.subscriptions().keySet());
        }
        if (topic != null && !topic.isEmpty()) {
            topics.add(topic);
        } else {
            topics.addAll(messaging.consumers().committedTopics(group));
            topics.addAll(subscribed);
        }
        if (!subscribed.isEmpty()) {
            topics.retainAll(subscribed);
        }
        return topics;
    }

    /** The offset-table entries of one topic, comma-separated; keys are MessageQueue objects, as fastjson writes. */
    private String entries(final String topic, final List<QueueLag> lags) {
        final StringBuilder sb = new StringBuilder();
        for (QueueLag lag : lags) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            final long consumer = Math.max(lag.committedOffset(), 0);
            sb.append(identity.messageQueueJson(topic, lag.queueId())).append(":{\"brokerOffset\":")
                    .append(lag.maxOffset())
                    .append(",\"consumerOffset\":").append(consumer)
                    .append(",\"lastTimestamp\":").append(Math.max(lag.lastConsumedTime(), 0))
                    .append(",\"pullOffset\":").append(consumer).append('}');
        }
        return sb.toString();
    }
}
