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

    /** A request being served: its future and how to write its result. */
    record Served(CompletableFuture<?> call, BiConsumer<ByteBuf, Object> writer) {
    }

    private static final BiConsumer<ByteBuf, Object> NOTHING = (out, r) -> { };

    private AdminRequests() {
    }

    static Served serve(final Operation op, final Messaging m, final StoreNodeView view, final ByteBuf in) {
        return switch (op) {
            case TOPOLOGY -> done(view.topology(), (out, r) -> AdminCodec.writeTopology(out, (StoreTopology) r));
            case MIRROR -> done(mirror(m, view), (out, r) -> AdminCodec.writeMirror(out, (MirrorSnapshot) r));
            case BROWSE -> new Served(m.browse(AdminCodec.readBrowseRequest(in).compile()),
                    (out, r) -> AdminCodec.writeBrowseResult(out, (BrowseResult) r));
            case LOOKUP -> new Served(m.lookup(WireFormat.readLong(in)), AdminRequests::writeOptionalStored);
            case QUERY_BY_ID -> new Served(m.queryById(WireFormat.readString(in), WireFormat.readString(in)),
                    AdminRequests::writeOptionalStored);
            case QUERY_BY_KEY -> new Served(m.queryByKey(WireFormat.readString(in), WireFormat.readString(in),
                    WireFormat.readInt(in), WireFormat.readLong(in), WireFormat.readLong(in)),
                    AdminRequests::writeStoredList);
            case QUERY_BY_TIME -> new Served(m.queryByTime(WireFormat.readString(in), WireFormat.readLong(in),
                    WireFormat.readLong(in), WireFormat.readInt(in)), AdminRequests::writeStoredList);
            case TOPIC_CREATE_OR_UPDATE -> new Served(m.topics().createOrUpdate(AdminCodec.readTopic(in)),
                    (out, r) -> AdminCodec.writeTopic(out, (TopicConfig) r));
            case TOPIC_CREATE_IF_ABSENT -> new Served(m.topics().createIfAbsent(AdminCodec.readTopic(in)),
                    (out, r) -> AdminCodec.writeTopic(out, (TopicConfig) r));
            case TOPIC_DELETE -> new Served(m.topics().delete(WireFormat.readString(in)), AdminRequests::writeBoolean);
            case SEAL_QUEUE -> new Served(m.topics().sealQueue(WireFormat.readString(in), WireFormat.readInt(in)),
                    (out, r) -> out.writeLong((Long) r));
            case GROUP_CREATE_OR_UPDATE -> new Served(m.groups().createOrUpdate(AdminCodec.readGroup(in)),
                    (out, r) -> AdminCodec.writeGroup(out, (GroupConfig) r));
            case GROUP_DELETE -> new Served(m.groups().delete(WireFormat.readString(in)), AdminRequests::writeBoolean);
            case GROUP_REDRIVE -> new Served(m.groups().redriveDeadLetters(WireFormat.readString(in),
                    WireFormat.readInt(in)), (out, r) -> out.writeInt((Integer) r));
            case GROUP_GET_OR_CREATE -> done(m.groups().getOrCreate(WireFormat.readString(in)),
                    (out, r) -> AdminCodec.writeOptionalGroup(out, castOptional(r)));
            case KV_PUT -> new Served(m.kvConfigs().put(WireFormat.readString(in), WireFormat.readString(in),
                    WireFormat.readString(in)), NOTHING);
            case KV_DELETE -> new Served(m.kvConfigs().delete(WireFormat.readString(in), WireFormat.readString(in)),
                    AdminRequests::writeBoolean);
            case HEARTBEAT -> {
                m.consumers().heartbeat(WireFormat.readString(in), WireFormat.readString(in),
                        AdminCodec.readSubscriptions(in), WireFormat.readBoolean(in));
                yield done(null, NOTHING);
            }
            case UNREGISTER -> {
                m.consumers().unregister(WireFormat.readString(in), WireFormat.readString(in));
                yield done(null, NOTHING);
            }
            case LOCK_QUEUES -> done(m.consumers().lockQueues(WireFormat.readString(in), WireFormat.readString(in),
                    WireFormat.readString(in), AdminCodec.readQueueIds(in)),
                    (out, r) -> AdminCodec.writeQueueIds(out, castSet(r)));
            case UNLOCK_QUEUES -> {
                m.consumers().unlockQueues(WireFormat.readString(in), WireFormat.readString(in),
                        WireFormat.readString(in), AdminCodec.readQueueIds(in));
                yield done(null, NOTHING);
            }
            case LAG -> new Served(m.consumers().lag(WireFormat.readString(in), WireFormat.readString(in)),
                    (out, r) -> AdminCodec.writeLags(out, castList(r)));
            case RESET_OFFSETS -> new Served(m.consumers().resetOffsets(WireFormat.readString(in),
                    WireFormat.readString(in), WireFormat.readLong(in)),
                    (out, r) -> AdminCodec.writeQueueOffsets(out, castMap(r)));
            case RUNTIME_FIGURES -> new Served(m.statistics().runtime(),
                    (out, r) -> AdminCodec.writeRuntime(out, (RuntimeFigures) r));
            default -> throw new MalformedFrameException("operation " + op + " has no request");
        };
    }

    private static Served done(final Object result, final BiConsumer<ByteBuf, Object> writer) {
        return new Served(CompletableFuture.completedFuture(result), writer);
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
