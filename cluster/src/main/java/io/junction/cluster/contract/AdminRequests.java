package io.junction.cluster.contract;

import io.junction.cluster.contract.MirrorSnapshot.QueueRange;
import io.junction.core.BrowseResult;
import io.junction.core.Messaging;
import io.junction.core.RuntimeFigures;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.group.ConsumerClient;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * The server side of the operations a proxy needs beyond what a follower forwards: topology, the metadata mirror,
 * queries, metadata changes and consumer membership. The synchronous calls of the contract (heartbeats, queue locks,
 * the mirror's reads) read and write memory only, so they run on the contract server's event loop.
 */
final class AdminRequests {

    private static final BiConsumer<ByteBuf, Object> NOTHING = DecodedRequest.NOTHING;

    private AdminRequests() {
    }

    /** Reads the body of an admin operation whole; the call on the store is made afterwards, if it decodes. */
    static DecodedRequest decode(final Operation op, final StoreNodeView view, final ByteBuf in) {
        return switch (op) {
            case TOPOLOGY -> new DecodedRequest(m -> done(view.topology()),
                    (out, r) -> AdminCodec.writeTopology(out, (StoreTopology) r));
            case MIRROR -> new DecodedRequest(m -> done(mirror(m, view)),
                    (out, r) -> AdminCodec.writeMirror(out, (MirrorSnapshot) r));
            case BROWSE -> {
                final AdminCodec.BrowseRequestSpec request = AdminCodec.readBrowseRequest(in);
                yield new DecodedRequest(m -> m.browse(request.compile()),
                        (out, r) -> AdminCodec.writeBrowseResult(out, (BrowseResult) r));
            }
            case LOOKUP -> {
                final long offset = WireFormat.readLong(in);
                yield new DecodedRequest(m -> m.lookup(offset), AdminRequests::writeOptionalStored);
            }
            case QUERY_BY_ID -> {
                final String topic = WireFormat.readString(in);
                final String messageId = WireFormat.readString(in);
                yield new DecodedRequest(m -> m.queryById(topic, messageId), AdminRequests::writeOptionalStored);
            }
            case QUERY_BY_KEY -> {
                final String topic = WireFormat.readString(in);
                final String key = WireFormat.readString(in);
                final int max = WireFormat.readInt(in);
                final long begin = WireFormat.readLong(in);
                final long end = WireFormat.readLong(in);
                yield new DecodedRequest(m -> m.queryByKey(topic, key, max, begin, end),
                        AdminRequests::writeStoredList);
            }
            case QUERY_BY_TIME -> {
                final String topic = WireFormat.readString(in);
                final long begin = WireFormat.readLong(in);
                final long end = WireFormat.readLong(in);
                final int max = WireFormat.readInt(in);
                yield new DecodedRequest(m -> m.queryByTime(topic, begin, end, max), AdminRequests::writeStoredList);
            }
            case TOPIC_CREATE_OR_UPDATE -> {
                final TopicConfig topic = AdminCodec.readTopic(in);
                yield new DecodedRequest(m -> m.topics().createOrUpdate(topic), AdminRequests::writeTopic);
            }
            case TOPIC_CREATE_IF_ABSENT -> {
                final TopicConfig topic = AdminCodec.readTopic(in);
                yield new DecodedRequest(m -> m.topics().createIfAbsent(topic), AdminRequests::writeTopic);
            }
            case TOPIC_DELETE -> {
                final String topic = WireFormat.readString(in);
                yield new DecodedRequest(m -> m.topics().delete(topic), AdminRequests::writeBoolean);
            }
            case SEAL_QUEUE -> {
                final String topic = WireFormat.readString(in);
                final int queueId = WireFormat.readInt(in);
                yield new DecodedRequest(m -> m.topics().sealQueue(topic, queueId),
                        (out, r) -> out.writeLong((Long) r));
            }
            case GROUP_CREATE_OR_UPDATE -> {
                final GroupConfig group = AdminCodec.readGroup(in);
                yield new DecodedRequest(m -> m.groups().createOrUpdate(group),
                        (out, r) -> AdminCodec.writeGroup(out, (GroupConfig) r));
            }
            case GROUP_DELETE -> {
                final String group = WireFormat.readString(in);
                yield new DecodedRequest(m -> m.groups().delete(group), AdminRequests::writeBoolean);
            }
            case GROUP_REDRIVE -> {
                final String group = WireFormat.readString(in);
                final int max = WireFormat.readInt(in);
                yield new DecodedRequest(m -> m.groups().redriveDeadLetters(group, max),
                        (out, r) -> out.writeInt((Integer) r));
            }
            case GROUP_GET_OR_CREATE -> {
                final String group = WireFormat.readString(in);
                yield new DecodedRequest(m -> done(m.groups().getOrCreate(group)),
                        (out, r) -> AdminCodec.writeOptionalGroup(out, castOptional(r)));
            }
            case KV_PUT -> {
                final String namespace = WireFormat.readString(in);
                final String key = WireFormat.readString(in);
                final String value = WireFormat.readString(in);
                yield new DecodedRequest(m -> m.kvConfigs().put(namespace, key, value), NOTHING);
            }
            case KV_REPLACE -> {
                final String namespace = WireFormat.readString(in);
                final String key = WireFormat.readString(in);
                final String expected = WireFormat.readString(in);
                final String value = WireFormat.readString(in);
                yield new DecodedRequest(m -> m.kvConfigs().replace(namespace, key, expected, value),
                        AdminRequests::writeBoolean);
            }
            case KV_DELETE -> {
                final String namespace = WireFormat.readString(in);
                final String key = WireFormat.readString(in);
                yield new DecodedRequest(m -> m.kvConfigs().delete(namespace, key), AdminRequests::writeBoolean);
            }
            case HEARTBEAT -> {
                final String group = WireFormat.readString(in);
                final String clientId = WireFormat.readString(in);
                final Map<String, ConsumerClient.Subscription> subscriptions = AdminCodec.readSubscriptions(in);
                final boolean broadcast = WireFormat.readBoolean(in);
                yield new DecodedRequest(m -> {
                    m.consumers().heartbeat(group, clientId, subscriptions, broadcast);
                    return done(null);
                }, NOTHING);
            }
            case UNREGISTER -> {
                final String group = WireFormat.readString(in);
                final String clientId = WireFormat.readString(in);
                yield new DecodedRequest(m -> {
                    m.consumers().unregister(group, clientId);
                    return done(null);
                }, NOTHING);
            }
            case LOCK_QUEUES -> {
                final String group = WireFormat.readString(in);
                final String clientId = WireFormat.readString(in);
                final String topic = WireFormat.readString(in);
                final Set<Integer> queues = AdminCodec.readQueueIds(in);
                yield new DecodedRequest(m -> done(m.consumers().lockQueues(group, clientId, topic, queues)),
                        (out, r) -> AdminCodec.writeQueueIds(out, castSet(r)));
            }
            case UNLOCK_QUEUES -> {
                final String group = WireFormat.readString(in);
                final String clientId = WireFormat.readString(in);
                final String topic = WireFormat.readString(in);
                final Set<Integer> queues = AdminCodec.readQueueIds(in);
                yield new DecodedRequest(m -> {
                    m.consumers().unlockQueues(group, clientId, topic, queues);
                    return done(null);
                }, NOTHING);
            }
            case LAG -> {
                final String group = WireFormat.readString(in);
                final String topic = WireFormat.readString(in);
                yield new DecodedRequest(m -> m.consumers().lag(group, topic),
                        (out, r) -> AdminCodec.writeLags(out, castList(r)));
            }
            case RESET_OFFSETS -> {
                final String group = WireFormat.readString(in);
                final String topic = WireFormat.readString(in);
                final long timestamp = WireFormat.readLong(in);
                yield new DecodedRequest(m -> m.consumers().resetOffsets(group, topic, timestamp),
                        (out, r) -> AdminCodec.writeQueueOffsets(out, castMap(r)));
            }
            case RUNTIME_FIGURES -> new DecodedRequest(m -> m.statistics().runtime(),
                    (out, r) -> AdminCodec.writeRuntime(out, (RuntimeFigures) r));
            default -> throw new MalformedFrameException("operation " + op + " has no request");
        };
    }

    private static CompletableFuture<?> done(final Object result) {
        return CompletableFuture.completedFuture(result);
    }

    /** The store's tables, every queue's range, every group's live clients, its retention. */
    static MirrorSnapshot mirror(final Messaging m, final StoreNodeView view) {
        final Map<String, byte[]> tables;
        try {
            tables = view.tables();
        } catch (IOException e) {
            throw new StoreException(StoreError.IO_ERROR, "cannot export the tables: " + e.getMessage(), e);
        }
        final List<QueueRange> queues = new ArrayList<>();
        for (TopicConfig t : m.topics().list()) {
            for (int q = 0; q < t.queueCount(); q++) {
                queues.add(new QueueRange(t.name(), q, m.minOffset(t.name(), q), m.maxOffset(t.name(), q)));
            }
        }
        final Map<String, List<ConsumerClient>> clients = new HashMap<>();
        for (String group : view.consumerGroups()) {
            final List<ConsumerClient> live = m.consumers().clients(group);
            if (!live.isEmpty()) {
                clients.put(group, live);
            }
        }
        return new MirrorSnapshot(tables, queues, clients, m.retention().toMillis());
    }

    private static void writeOptionalStored(final ByteBuf out, final Object r) {
        AdminCodec.writeOptionalStored(out, castOptional(r));
    }

    private static void writeStoredList(final ByteBuf out, final Object r) {
        ContractCodec.writeStoredList(out, castList(r));
    }

    private static void writeTopic(final ByteBuf out, final Object r) {
        AdminCodec.writeTopic(out, (TopicConfig) r);
    }

    private static void writeBoolean(final ByteBuf out, final Object r) {
        out.writeBoolean((Boolean) r);
    }

    @SuppressWarnings("unchecked")
    private static <T> Optional<T> castOptional(final Object o) {
        return (Optional<T>) o;
    }

    @SuppressWarnings("unchecked")
    private static <T> List<T> castList(final Object o) {
        return (List<T>) o;
    }

    @SuppressWarnings("unchecked")
    private static Set<Integer> castSet(final Object o) {
        return (Set<Integer>) o;
    }

    @SuppressWarnings("unchecked")
    private static Map<Integer, Long> castMap(final Object o) {
        return (Map<Integer, Long>) o;
    }
}
