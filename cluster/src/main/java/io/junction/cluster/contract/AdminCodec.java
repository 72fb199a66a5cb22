package io.junction.cluster.contract;

import io.junction.cluster.contract.MirrorSnapshot.QueueRange;
import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.RuntimeFigures;
import io.junction.core.filter.FilterSpec;
import io.junction.core.group.ConsumerClient;
import io.junction.core.group.QueueLag;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.DurableTable;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.MetadataCodecs;
import io.junction.core.meta.TopicConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Writes and reads the types of the contract's metadata, query and consumer operations (the ones a proxy needs beyond
 * what a follower forwards), field by field ({@link WireFormat}). Topic and group configurations cross in the store's
 * own table codec ({@link MetadataCodecs}), so a field added there crosses too.
 */
final class AdminCodec {
    private static final int MAX_TABLES = 16;

    private AdminCodec() {
    }

    // ---- topology and mirror ----

    static void writeTopology(final ByteBuf out, final StoreTopology t) {
        WireFormat.writeString(out, t.leaderId());
        WireFormat.writeProperties(out, t.contracts());
    }

    static StoreTopology readTopology(final ByteBuf in) {
        return new StoreTopology(WireFormat.readString(in), WireFormat.readProperties(in));
    }

    static void writeMirror(final ByteBuf out, final MirrorSnapshot m) {
        out.writeInt(m.tables().size());
        for (Map.Entry<String, byte[]> t : m.tables().entrySet()) {
            WireFormat.writeString(out, t.getKey());
            WireFormat.writeBytes(out, t.getValue());
        }
        out.writeInt(m.queues().size());
        for (QueueRange q : m.queues()) {
            WireFormat.writeString(out, q.topic());
            out.writeInt(q.queueId());
            out.writeLong(q.min());
            out.writeLong(q.max());
        }
        out.writeInt(m.clients().size());
        for (Map.Entry<String, List<ConsumerClient>> g : m.clients().entrySet()) {
            WireFormat.writeString(out, g.getKey());
            writeClients(out, g.getValue());
        }
        out.writeLong(m.retentionMillis());
    }

    static MirrorSnapshot readMirror(final ByteBuf in) {
        final int tableCount = WireFormat.readLength(in, 8, false);
        if (tableCount > MAX_TABLES) {
            throw new MalformedFrameException("table count " + tableCount);
        }
        final Map<String, byte[]> tables = new HashMap<>();
        for (int i = 0; i < tableCount; i++) {
            tables.put(requireName(WireFormat.readString(in)), WireFormat.readBytes(in));
        }
        final int queueCount = WireFormat.readLength(in, 24, false);
        final List<QueueRange> queues = new ArrayList<>(queueCount);
        for (int i = 0; i < queueCount; i++) {
            queues.add(new QueueRange(requireName(WireFormat.readString(in)), WireFormat.readInt(in),
                    WireFormat.readLong(in), WireFormat.readLong(in)));
        }
        final int groupCount = WireFormat.readLength(in, 8, false);
        final Map<String, List<ConsumerClient>> clients = new HashMap<>();
        for (int i = 0; i < groupCount; i++) {
            clients.put(requireName(WireFormat.readString(in)), readClients(in));
        }
        return new MirrorSnapshot(tables, queues, clients, WireFormat.readLong(in));
    }

    private static String requireName(final String name) {
        if (name == null) {
            throw new MalformedFrameException("a name is missing");
        }
        return name;
    }

    // ---- topics and groups ----

    static void writeTopic(final ByteBuf out, final TopicConfig topic) {
        writeEntry(out, topic, MetadataCodecs.TOPIC);
    }

    static TopicConfig readTopic(final ByteBuf in) {
        return readEntry(in, MetadataCodecs.TOPIC);
    }

    static void writeGroup(final ByteBuf out, final GroupConfig group) {
        writeEntry(out, group, MetadataCodecs.GROUP);
    }

    static GroupConfig readGroup(final ByteBuf in) {
        return readEntry(in, MetadataCodecs.GROUP);
    }

    static void writeOptionalGroup(final ByteBuf out, final Optional<GroupConfig> group) {
        out.writeBoolean(group.isPresent());
        group.ifPresent(g -> writeGroup(out, g));
    }

    static Optional<GroupConfig> readOptionalGroup(final ByteBuf in) {
        return WireFormat.readBoolean(in) ? Optional.of(readGroup(in)) : Optional.empty();
    }

    private static <V> void writeEntry(final ByteBuf out, final V value, final DurableTable.Codec<V> codec) {
        final int lengthAt = out.writerIndex();
        out.writeInt(0);
        try (ByteBufOutputStream stream = new ByteBufOutputStream(out)) {
            codec.write(value, stream);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot encode " + value + ": " + e.getMessage(), e);
        }
        out.setInt(lengthAt, out.writerIndex() - lengthAt - 4);
    }

    private static <V> V readEntry(final ByteBuf in, final DurableTable.Codec<V> codec) {
        final int length = WireFormat.readLength(in, 1, false);
        final ByteBuf entry = in.readSlice(length);
        try (ByteBufInputStream stream = new ByteBufInputStream(entry)) {
            final V value = codec.read(stream);
            if (entry.isReadable()) {
                throw new MalformedFrameException(entry.readableBytes() + " bytes after an entry");
            }
            return value;
        } catch (IOException | RuntimeException e) {
            if (e instanceof MalformedFrameException m) {
                throw m;
            }
            throw new MalformedFrameException("an entry that does not decode: " + e.getMessage());
        }
    }

    // ---- queries ----

    static void writeOptionalStored(final ByteBuf out, final Optional<StoredMessage> m) {
        out.writeBoolean(m.isPresent());
        m.ifPresent(s -> ContractCodec.writeStored(out, s));
    }

    static Optional<StoredMessage> readOptionalStored(final ByteBuf in) {
        return WireFormat.readBoolean(in) ? Optional.of(ContractCodec.readStored(in)) : Optional.empty();
    }

    static void writeBrowseRequest(final ByteBuf out, final BrowseRequest r) {
        WireFormat.writeString(out, r.group());
        WireFormat.writeString(out, r.topic());
        FilterCodec.writeFilter(out, r.filter());
        writePositions(out, r.positions());
        out.writeInt(r.maxMessages());
    }

    /** A browse request as read, its filter not yet compiled (the server answers a bad one). */
    record BrowseRequestSpec(String group, String topic, FilterSpec filter, long[] positions, int maxMessages) {
        BrowseRequest compile() {
            return new BrowseRequest(group, topic, filter.compile(), positions, maxMessages);
        }
    }

    static BrowseRequestSpec readBrowseRequest(final ByteBuf in) {
        final String group = WireFormat.readString(in);
        final String topic = WireFormat.readString(in);
        if (group == null || topic == null) {
            throw new MalformedFrameException("a browse without a group or topic");
        }
        return new BrowseRequestSpec(group, topic, FilterCodec.readFilter(in), readPositions(in),
                WireFormat.readInt(in));
    }

    static void writeBrowseResult(final ByteBuf out, final BrowseResult r) {
        ContractCodec.writeStoredList(out, r.messages());
        writePositions(out, r.positions());
        out.writeBoolean(r.end());
    }

    static BrowseResult readBrowseResult(final ByteBuf in) {
        final List<StoredMessage> messages = ContractCodec.readStoredList(in);
        final long[] positions = readPositions(in);
        return new BrowseResult(messages, positions == null ? new long[0] : positions, WireFormat.readBoolean(in));
    }

    private static void writePositions(final ByteBuf out, final long[] positions) {
        if (positions == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(positions.length);
        for (long p : positions) {
            out.writeLong(p);
        }
    }

    private static long[] readPositions(final ByteBuf in) {
        final int n = WireFormat.readLength(in, 8, true);
        if (n < 0) {
            return null;
        }
        final long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            positions[i] = WireFormat.readLong(in);
        }
        return positions;
    }

    // ---- consumers ----

    static void writeSubscriptions(final ByteBuf out, final Map<String, ConsumerClient.Subscription> subscriptions) {
        out.writeInt(subscriptions.size());
        for (Map.Entry<String, ConsumerClient.Subscription> s : subscriptions.entrySet()) {
            WireFormat.writeString(out, s.getKey());
            WireFormat.writeString(out, s.getValue().type());
            WireFormat.writeString(out, s.getValue().expression());
        }
    }

    static Map<String, ConsumerClient.Subscription> readSubscriptions(final ByteBuf in) {
        final int n = WireFormat.readLength(in, 12, false);
        final Map<String, ConsumerClient.Subscription> subscriptions = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            subscriptions.put(requireName(WireFormat.readString(in)),
                    new ConsumerClient.Subscription(WireFormat.readString(in), WireFormat.readString(in)));
        }
        return subscriptions;
    }

    static void writeClients(final ByteBuf out, final List<ConsumerClient> clients) {
        out.writeInt(clients.size());
        for (ConsumerClient c : clients) {
            WireFormat.writeString(out, c.clientId());
            writeSubscriptions(out, c.subscriptions());
            out.writeBoolean(c.broadcast());
            out.writeLong(c.lastHeartbeat());
        }
    }

    static List<ConsumerClient> readClients(final ByteBuf in) {
        final int n = WireFormat.readLength(in, 17, false);
        final List<ConsumerClient> clients = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            clients.add(new ConsumerClient(requireName(WireFormat.readString(in)), readSubscriptions(in),
                    WireFormat.readBoolean(in), WireFormat.readLong(in)));
        }
        return clients;
    }

    static void writeQueueIds(final ByteBuf out, final Set<Integer> queues) {
        out.writeInt(queues.size());
        for (int q : queues) {
            out.writeInt(q);
        }
    }

    static Set<Integer> readQueueIds(final ByteBuf in) {
        final int n = WireFormat.readLength(in, 4, false);
        final Set<Integer> queues = new LinkedHashSet<>();
        for (int i = 0; i < n; i++) {
            queues.add(WireFormat.readInt(in));
        }
        return queues;
    }

    static void writeLags(final ByteBuf out, final List<QueueLag> lags) {
        out.writeInt(lags.size());
        for (QueueLag l : lags) {
            out.writeInt(l.queueId());
            out.writeLong(l.committedOffset());
            out.writeLong(l.maxOffset());
            out.writeLong(l.lag());
            out.writeLong(l.lastStoreTime());
            out.writeLong(l.lastConsumedTime());
        }
    }

    static List<QueueLag> readLags(final ByteBuf in) {
        final int n = WireFormat.readLength(in, 44, false);
        final List<QueueLag> lags = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            lags.add(new QueueLag(WireFormat.readInt(in), WireFormat.readLong(in), WireFormat.readLong(in), WireFormat.readLong(in), WireFormat.readLong(in),
                    WireFormat.readLong(in)));
        }
        return lags;
    }

    static void writeQueueOffsets(final ByteBuf out, final Map<Integer, Long> offsets) {
        out.writeInt(offsets.size());
        for (Map.Entry<Integer, Long> e : offsets.entrySet()) {
            out.writeInt(e.getKey());
            out.writeLong(e.getValue());
        }
    }

    static Map<Integer, Long> readQueueOffsets(final ByteBuf in) {
        final int n = WireFormat.readLength(in, 12, false);
        final Map<Integer, Long> offsets = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            offsets.put(WireFormat.readInt(in), WireFormat.readLong(in));
        }
        return offsets;
    }

    // ---- statistics ----

    static void writeRuntime(final ByteBuf out, final RuntimeFigures f) {
        out.writeLong(f.bootTimestamp());
        writeRates(out, f.stored());
        writeRates(out, f.handedOut());
        writeRates(out, f.readsFound());
        writeRates(out, f.readsMissed());
        writeTotals(out, f.storedTotals());
        writeTotals(out, f.handedOutTotals());
        out.writeLong(f.logMinOffset());
        out.writeLong(f.logMaxOffset());
        out.writeLong(f.dispatchBehindBytes());
        out.writeLong(f.unflushedBytes());
        out.writeDouble(f.diskUsedRatio());
        out.writeLong(f.earliestMessageTime());
    }

    static RuntimeFigures readRuntime(final ByteBuf in) {
        return new RuntimeFigures(WireFormat.readLong(in), readRates(in), readRates(in), readRates(in),
                readRates(in), readTotals(in), readTotals(in), WireFormat.readLong(in), WireFormat.readLong(in),
                WireFormat.readLong(in), WireFormat.readLong(in), readDouble(in), WireFormat.readLong(in));
    }

    private static void writeRates(final ByteBuf out, final RuntimeFigures.Rates r) {
        out.writeDouble(r.last10Seconds());
        out.writeDouble(r.lastMinute());
        out.writeDouble(r.last10Minutes());
    }

    private static RuntimeFigures.Rates readRates(final ByteBuf in) {
        return new RuntimeFigures.Rates(readDouble(in), readDouble(in), readDouble(in));
    }

    private static double readDouble(final ByteBuf in) {
        return Double.longBitsToDouble(WireFormat.readLong(in));
    }

    private static void writeTotals(final ByteBuf out, final RuntimeFigures.Totals t) {
        out.writeLong(t.now());
        out.writeLong(t.todayMorning());
        out.writeLong(t.yesterdayMorning());
    }

    private static RuntimeFigures.Totals readTotals(final ByteBuf in) {
        return new RuntimeFigures.Totals(WireFormat.readLong(in), WireFormat.readLong(in), WireFormat.readLong(in));
    }
}
