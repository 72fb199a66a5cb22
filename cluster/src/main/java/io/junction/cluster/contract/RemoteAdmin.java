package io.junction.cluster.contract;

import io.junction.core.RuntimeFigures;
import io.junction.core.group.ConsumerClient;
import io.junction.core.group.QueueLag;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The operations of a store node's contract server that the contract itself makes synchronous (metadata views,
 * consumer membership) or that only a proxy needs (topology, the metadata mirror), each as a future: a proxy mirrors
 * the answers and forwards the changes, never waiting on a caller's thread. Calls travel on their
 * {@link RemoteMessaging}'s connection, with its deadline.
 */
public final class RemoteAdmin {
    private final RemoteMessaging remote;

    RemoteAdmin(final RemoteMessaging remote) {
        this.remote = remote;
    }

    /** Who leads the group and where its members' contract servers are, as this node knows it. */
    public CompletableFuture<StoreTopology> topology() {
        return remote.call(Operation.TOPOLOGY, out -> { }, AdminCodec::readTopology, 0);
    }

    /** The node's metadata tables, queue ranges, consumer clients and retention. */
    public CompletableFuture<MirrorSnapshot> mirror() {
        return remote.call(Operation.MIRROR, out -> { }, AdminCodec::readMirror, 0);
    }

    public CompletableFuture<TopicConfig> createOrUpdateTopic(final TopicConfig topic) {
        return remote.call(Operation.TOPIC_CREATE_OR_UPDATE, out -> AdminCodec.writeTopic(out, topic),
                AdminCodec::readTopic, 0);
    }

    public CompletableFuture<TopicConfig> createTopicIfAbsent(final TopicConfig topic) {
        return remote.call(Operation.TOPIC_CREATE_IF_ABSENT, out -> AdminCodec.writeTopic(out, topic),
                AdminCodec::readTopic, 0);
    }

    public CompletableFuture<Boolean> deleteTopic(final String topic) {
        return remote.call(Operation.TOPIC_DELETE, out -> WireFormat.writeString(out, topic),
                WireFormat::readBoolean, 0);
    }

    /** Seals a physical queue of the node's group (see {@code Messaging.TopicAdmin#sealQueue}): its final end. */
    public CompletableFuture<Long> sealQueue(final String topic, final int queueId) {
        return remote.call(Operation.SEAL_QUEUE, out -> {
            WireFormat.writeString(out, topic);
            out.writeInt(queueId);
        }, WireFormat::readLong, 0);
    }

    public CompletableFuture<GroupConfig> createOrUpdateGroup(final GroupConfig group) {
        return remote.call(Operation.GROUP_CREATE_OR_UPDATE, out -> AdminCodec.writeGroup(out, group),
                AdminCodec::readGroup, 0);
    }

    public CompletableFuture<Boolean> deleteGroup(final String group) {
        return remote.call(Operation.GROUP_DELETE, out -> WireFormat.writeString(out, group),
                WireFormat::readBoolean, 0);
    }

    public CompletableFuture<Integer> redriveDeadLetters(final String group, final int max) {
        return remote.call(Operation.GROUP_REDRIVE, out -> {
            WireFormat.writeString(out, group);
            out.writeInt(max);
        }, WireFormat::readInt, 0);
    }

    /** The group as the node finds it for a consumer (created with the defaults when it creates groups on use). */
    public CompletableFuture<Optional<GroupConfig>> getOrCreateGroup(final String group) {
        return remote.call(Operation.GROUP_GET_OR_CREATE, out -> WireFormat.writeString(out, group),
                AdminCodec::readOptionalGroup, 0);
    }

    public CompletableFuture<Void> putKv(final String namespace, final String key, final String value) {
        return remote.call(Operation.KV_PUT, out -> {
            WireFormat.writeString(out, namespace);
            WireFormat.writeString(out, key);
            WireFormat.writeString(out, value);
        }, RemoteMessaging::none, 0);
    }

    /** Compare-and-set on the leader: {@code expected} null means "only while there is none". */
    public CompletableFuture<Boolean> replaceKv(final String namespace, final String key, final String expected,
                                                final String value) {
        return remote.call(Operation.KV_REPLACE, out -> {
            WireFormat.writeString(out, namespace);
            WireFormat.writeString(out, key);
            WireFormat.writeString(out, expected);
            WireFormat.writeString(out, value);
        }, WireFormat::readBoolean, 0);
    }

    public CompletableFuture<Boolean> deleteKv(final String namespace, final String key) {
        return remote.call(Operation.KV_DELETE, out -> {
            WireFormat.writeString(out, namespace);
            WireFormat.writeString(out, key);
        }, WireFormat::readBoolean, 0);
    }

    public CompletableFuture<Void> heartbeat(final String group, final String clientId,
                                             final Map<String, ConsumerClient.Subscription> subscriptions,
                                             final boolean broadcast) {
        return remote.call(Operation.HEARTBEAT, out -> {
            WireFormat.writeString(out, group);
            WireFormat.writeString(out, clientId);
            AdminCodec.writeSubscriptions(out, subscriptions);
            out.writeBoolean(broadcast);
        }, RemoteMessaging::none, 0);
    }

    public CompletableFuture<Void> unregister(final String group, final String clientId) {
        return remote.call(Operation.UNREGISTER, out -> {
            WireFormat.writeString(out, group);
            WireFormat.writeString(out, clientId);
        }, RemoteMessaging::none, 0);
    }

    public CompletableFuture<Set<Integer>> lockQueues(final String group, final String clientId, final String topic,
                                                      final Set<Integer> queues) {
        return remote.call(Operation.LOCK_QUEUES, out -> {
            WireFormat.writeString(out, group);
            WireFormat.writeString(out, clientId);
            WireFormat.writeString(out, topic);
            AdminCodec.writeQueueIds(out, queues);
        }, AdminCodec::readQueueIds, 0);
    }

    public CompletableFuture<Void> unlockQueues(final String group, final String clientId, final String topic,
                                                final Set<Integer> queues) {
        return remote.call(Operation.UNLOCK_QUEUES, out -> {
            WireFormat.writeString(out, group);
            WireFormat.writeString(out, clientId);
            WireFormat.writeString(out, topic);
            AdminCodec.writeQueueIds(out, queues);
        }, RemoteMessaging::none, 0);
    }

    public CompletableFuture<List<QueueLag>> lag(final String group, final String topic) {
        return remote.call(Operation.LAG, out -> {
            WireFormat.writeString(out, group);
            WireFormat.writeString(out, topic);
        }, AdminCodec::readLags, 0);
    }

    public CompletableFuture<Map<Integer, Long>> resetOffsets(final String group, final String topic,
                                                              final long timestamp) {
        return remote.call(Operation.RESET_OFFSETS, out -> {
            WireFormat.writeString(out, group);
            WireFormat.writeString(out, topic);
            out.writeLong(timestamp);
        }, AdminCodec::readQueueOffsets, 0);
    }

    public CompletableFuture<RuntimeFigures> runtime() {
        return remote.call(Operation.RUNTIME_FIGURES, out -> { }, AdminCodec::readRuntime, 0);
    }

    /** A group's committed offset on the node, or -1. */
    public CompletableFuture<Long> queryOffset(final String group, final String topic, final int queueId) {
        return remote.queryOffsetAsync(group, topic, queueId);
    }
}
