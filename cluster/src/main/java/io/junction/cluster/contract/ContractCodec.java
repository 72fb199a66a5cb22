package io.junction.cluster.contract;

import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PopStart;
import io.junction.core.PoppedMessage;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.RecallHandle;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.filter.FilterSpec;
import io.junction.core.filter.MessageFilter;
import io.junction.core.filter.SqlDialect;
import io.junction.core.message.Message;
import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import io.junction.core.txn.TransactionEnd;
import io.junction.core.txn.TransactionResolution;
import io.netty.buffer.ByteBuf;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes and reads the contract's request and result types in frame bodies: fixed-width numbers big-endian, texts as
 * an int32 UTF-8 length (-1 = null) and bytes, lists and maps as an int32 count then their members. A stored message
 * crosses as its fields plus its whole record (RocketMQ's layout, {@link RecordLayout}), whose body is not sent twice.
 * Filters cross as their {@link FilterSpec}. Every read checks its length against the bytes left, so a lying count
 * fails the frame instead of allocating.
 *
 * @see ContractFrame
 */
final class ContractCodec {
    private static final byte FILTER_ALL = 0;
    private static final byte FILTER_TAG = 1;
    private static final byte FILTER_SQL = 2;
    private static final byte FILTER_ALL_OF = 3;
    private static final byte FILTER_ANY_OF = 4;
    private static final byte FILTER_NOT = 5;
    private static final byte FILTER_ATTRIBUTES = 6;
    private static final byte FILTER_EXTENSION = 7;
    /** Deepest filter tree read (CloudEvents nests all/any/not; far below this). */
    private static final int MAX_FILTER_DEPTH = 32;

    private static final byte HOST_NONE = 0;
    private static final byte HOST_ADDRESS = 1;
    private static final byte HOST_UNRESOLVED = 2;

    private static final byte BODY_IN_RECORD = 0;
    private static final byte BODY_SEPARATE = 1;

    private ContractCodec() {
    }

    // ---- primitives ----

    static void writeString(final ByteBuf out, final String s) {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        final byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.writeBytes(bytes);
    }

    static String readString(final ByteBuf in) {
        final int length = readLength(in, 1, true);
        if (length < 0) {
            return null;
        }
        final String s = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
        in.skipBytes(length);
        return s;
    }

    static void writeBytes(final ByteBuf out, final byte[] bytes) {
        out.writeInt(bytes.length);
        out.writeBytes(bytes);
    }

    static byte[] readBytes(final ByteBuf in) {
        final byte[] bytes = new byte[readLength(in, 1, false)];
        in.readBytes(bytes);
        return bytes;
    }

    /** A length or count whose members take at least {@code unit} bytes each; checked against what is left. */
    private static int readLength(final ByteBuf in, final int unit, final boolean nullable) {
        need(in, 4);
        final int n = in.readInt();
        if (n == -1 && nullable) {
            return -1;
        }
        if (n < 0 || (long) n * unit > in.readableBytes()) {
            throw new MalformedFrameException("a length of " + n + " with " + in.readableBytes() + " bytes left");
        }
        return n;
    }

    static int readCount(final ByteBuf in) {
        return readLength(in, 1, false);
    }

    private static void need(final ByteBuf in, final int bytes) {
        if (in.readableBytes() < bytes) {
            throw new MalformedFrameException("the body ends early");
        }
    }

    static int readInt(final ByteBuf in) {
        need(in, 4);
        return in.readInt();
    }

    static long readLong(final ByteBuf in) {
        need(in, 8);
        return in.readLong();
    }

    static byte readByte(final ByteBuf in) {
        need(in, 1);
        return in.readByte();
    }

    static boolean readBoolean(final ByteBuf in) {
        return readByte(in) != 0;
    }

    static void writeStrings(final ByteBuf out, final List<String> list) {
        out.writeInt(list.size());
        for (String s : list) {
            writeString(out, s);
        }
    }

    static List<String> readStrings(final ByteBuf in) {
        final int n = readLength(in, 4, false);
        final List<String> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(readString(in));
        }
        return list;
    }

    static void writeProperties(final ByteBuf out, final Map<String, String> properties) {
        out.writeInt(properties.size());
        for (Map.Entry<String, String> e : properties.entrySet()) {
            writeString(out, e.getKey());
            writeString(out, e.getValue());
        }
    }

    static Map<String, String> readProperties(final ByteBuf in) {
        final int n = readLength(in, 8, false);
        final Map<String, String> properties = new LinkedHashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            final String key = readString(in);
            final String value = readString(in);
            if (key == null || value == null) {
                throw new MalformedFrameException("a null property");
            }
            properties.put(key, value);
        }
        return properties;
    }

    static void writeHost(final ByteBuf out, final InetSocketAddress host) {
        if (host == null) {
            out.writeByte(HOST_NONE);
        } else if (host.isUnresolved()) {
            out.writeByte(HOST_UNRESOLVED);
            writeString(out, host.getHostString());
            out.writeInt(host.getPort());
        } else {
            out.writeByte(HOST_ADDRESS);
            writeBytes(out, host.getAddress().getAddress());
            out.writeInt(host.getPort());
        }
    }

    /** Reads an address without a name lookup (an address crosses as its bytes, a name stays unresolved). */
    static InetSocketAddress readHost(final ByteBuf in) {
        final byte kind = readByte(in);
        switch (kind) {
            case HOST_NONE:
                return null;
            case HOST_UNRESOLVED: {
                final String name = readString(in);
                final int port = readInt(in);
                if (name == null || port < 0 || port > 0xFFFF) {
                    throw new MalformedFrameException("a bad host");
                }
                return InetSocketAddress.createUnresolved(name, port);
            }
            case HOST_ADDRESS: {
                final byte[] address = readBytes(in);
                final int port = readInt(in);
                try {
                    return new InetSocketAddress(InetAddress.getByAddress(address), port);
                } catch (UnknownHostException | IllegalArgumentException e) {
                    throw new MalformedFrameException("a bad host address: " + e.getMessage());
                }
            }
            default:
                throw new MalformedFrameException("unknown host kind " + kind);
        }
    }

    private static <E extends Enum<E>> E readEnum(final ByteBuf in, final E[] values) {
        final int ordinal = readByte(in);
        if (ordinal < 0 || ordinal >= values.length) {
            throw new MalformedFrameException("unknown " + values[0].getDeclaringClass().getSimpleName() + " "
                    + ordinal);
        }
        return values[ordinal];
    }

    // ---- messages ----

    static void writeMessage(final ByteBuf out, final Message m) {
        writeString(out, m.topic());
        out.writeInt(m.queueId());
        writeBytes(out, m.body());
        out.writeInt(m.flag());
        writeProperties(out, m.properties());
        out.writeInt(m.sysFlag());
        out.writeLong(m.bornTimestamp());
        writeHost(out, m.bornHost());
        out.writeInt(m.reconsumeTimes());
    }

    static Message readMessage(final ByteBuf in) {
        final String topic = readString(in);
        if (topic == null) {
            throw new MalformedFrameException("a message without a topic");
        }
        return new Message(topic, readInt(in), readBytes(in), readInt(in), readProperties(in), readInt(in),
                readLong(in), readHost(in), readInt(in));
    }

    static void writeMessages(final ByteBuf out, final List<Message> messages) {
        out.writeInt(messages.size());
        for (Message m : messages) {
            writeMessage(out, m);
        }
    }

    static List<Message> readMessages(final ByteBuf in) {
        final int n = readLength(in, 4, false);
        final List<Message> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(readMessage(in));
        }
        return list;
    }

    static void writeStored(final ByteBuf out, final StoredMessage m) {
        writeString(out, m.topic());
        out.writeInt(m.queueId());
        out.writeLong(m.queueOffset());
        out.writeLong(m.commitLogOffset());
        out.writeInt(m.size());
        out.writeInt(m.flag());
        out.writeInt(m.sysFlag());
        out.writeLong(m.bornTimestamp());
        writeHost(out, m.bornHost());
        out.writeLong(m.storeTimestamp());
        writeHost(out, m.storeHost());
        out.writeInt(m.reconsumeTimes());
        out.writeLong(m.preparedTransactionOffset());
        writeProperties(out, m.properties());
        final ByteBuffer record = m.record() == null ? ByteBuffer.allocate(0) : m.record().duplicate();
        final ByteBuffer body = m.body().duplicate();
        out.writeInt(record.remaining());
        out.writeBytes(record.duplicate());
        if (bodyInRecord(record, body, m.sysFlag())) {
            out.writeByte(BODY_IN_RECORD);
        } else {
            out.writeByte(BODY_SEPARATE);
            out.writeInt(body.remaining());
            out.writeBytes(body);
        }
    }

    /** Whether the body is where the layout puts it in the record, so that it need not be sent twice. */
    private static boolean bodyInRecord(final ByteBuffer record, final ByteBuffer body, final int sysFlag) {
        final int lengthAt = RecordLayout.bodyLengthOffset(sysFlag);
        if (record.remaining() < lengthAt + 4 + body.remaining()) {
            return false;
        }
        final int base = record.position();
        return record.getInt(base + lengthAt) == body.remaining()
                && record.slice(base + lengthAt + 4, body.remaining()).equals(body);
    }

    static StoredMessage readStored(final ByteBuf in) {
        final String topic = readString(in);
        if (topic == null) {
            throw new MalformedFrameException("a stored message without a topic");
        }
        final int queueId = readInt(in);
        final long queueOffset = readLong(in);
        final long logOffset = readLong(in);
        final int size = readInt(in);
        final int flag = readInt(in);
        final int sysFlag = readInt(in);
        final long bornTimestamp = readLong(in);
        final InetSocketAddress bornHost = readHost(in);
        final long storeTimestamp = readLong(in);
        final InetSocketAddress storeHost = readHost(in);
        final int reconsumeTimes = readInt(in);
        final long preparedOffset = readLong(in);
        final Map<String, String> properties = readProperties(in);
        final ByteBuffer record = ByteBuffer.wrap(readBytes(in));
        final ByteBuffer body;
        final byte bodyKind = readByte(in);
        if (bodyKind == BODY_IN_RECORD) {
            final int lengthAt = RecordLayout.bodyLengthOffset(sysFlag);
            if (record.remaining() < lengthAt + 4) {
                throw new MalformedFrameException("a record too short for its body");
            }
            final int length = record.getInt(lengthAt);
            if (length < 0 || lengthAt + 4 + length > record.remaining()) {
                throw new MalformedFrameException("a body beyond its record");
            }
            body = record.slice(lengthAt + 4, length).asReadOnlyBuffer();
        } else if (bodyKind == BODY_SEPARATE) {
            body = ByteBuffer.wrap(readBytes(in)).asReadOnlyBuffer();
        } else {
            throw new MalformedFrameException("unknown body kind " + bodyKind);
        }
        return new StoredMessage(topic, queueId, queueOffset, logOffset, size, flag, sysFlag, bornTimestamp,
                bornHost, storeTimestamp, storeHost, reconsumeTimes, preparedOffset, properties, body,
                record.asReadOnlyBuffer());
    }

    static void writeStoredList(final ByteBuf out, final List<StoredMessage> messages) {
        out.writeInt(messages.size());
        for (StoredMessage m : messages) {
            writeStored(out, m);
        }
    }

    static List<StoredMessage> readStoredList(final ByteBuf in) {
        final int n = readLength(in, 4, false);
        final List<StoredMessage> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(readStored(in));
        }
        return list;
    }

    // ---- filters ----

    /**
     * Writes a filter as its spec.
     *
     * @throws IllegalArgumentException when the filter cannot be described ({@link MessageFilter#spec()} is null)
     */
    static void writeFilter(final ByteBuf out, final MessageFilter filter) {
        final FilterSpec spec = filter.spec();
        if (spec == null) {
            throw new IllegalArgumentException("the filter " + filter + " cannot be described to another node");
        }
        writeSpec(out, spec);
    }

    private static void writeSpec(final ByteBuf out, final FilterSpec spec) {
        if (spec instanceof FilterSpec.All) {
            out.writeByte(FILTER_ALL);
        } else if (spec instanceof FilterSpec.Tag tag) {
            out.writeByte(FILTER_TAG);
            writeString(out, tag.expression());
        } else if (spec instanceof FilterSpec.Sql sql) {
            out.writeByte(FILTER_SQL);
            writeString(out, sql.expression());
            out.writeByte(sql.dialect().ordinal());
            writeProperties(out, sql.propertyNames());
        } else if (spec instanceof FilterSpec.AllOf all) {
            out.writeByte(FILTER_ALL_OF);
            writeSpecs(out, all.parts());
        } else if (spec instanceof FilterSpec.AnyOf any) {
            out.writeByte(FILTER_ANY_OF);
            writeSpecs(out, any.parts());
        } else if (spec instanceof FilterSpec.Not not) {
            out.writeByte(FILTER_NOT);
            writeSpec(out, not.part());
        } else if (spec instanceof FilterSpec.AttributeMatch match) {
            out.writeByte(FILTER_ATTRIBUTES);
            out.writeByte(match.mode().ordinal());
            writeStrings(out, match.properties());
            writeStrings(out, match.values());
        } else if (spec instanceof FilterSpec.Extension extension) {
            out.writeByte(FILTER_EXTENSION);
            writeString(out, extension.kind());
            writeStrings(out, extension.arguments());
        } else {
            throw new IllegalArgumentException("unknown filter spec " + spec);
        }
    }

    private static void writeSpecs(final ByteBuf out, final List<FilterSpec> specs) {
        out.writeInt(specs.size());
        for (FilterSpec s : specs) {
            writeSpec(out, s);
        }
    }

    /** Reads a filter spec; compiling it ({@link FilterSpec#compile()}) may still fail for a malformed expression. */
    static FilterSpec readFilter(final ByteBuf in) {
        return readSpec(in, 0);
    }

    private static FilterSpec readSpec(final ByteBuf in, final int depth) {
        if (depth > MAX_FILTER_DEPTH) {
            throw new MalformedFrameException("a filter nested deeper than " + MAX_FILTER_DEPTH);
        }
        final byte kind = readByte(in);
        try {
            switch (kind) {
                case FILTER_ALL:
                    return new FilterSpec.All();
                case FILTER_TAG:
                    return new FilterSpec.Tag(readString(in));
                case FILTER_SQL:
                    return new FilterSpec.Sql(readString(in), readEnum(in, SqlDialect.values()), readProperties(in));
                case FILTER_ALL_OF:
                    return new FilterSpec.AllOf(readSpecs(in, depth));
                case FILTER_ANY_OF:
                    return new FilterSpec.AnyOf(readSpecs(in, depth));
                case FILTER_NOT:
                    return new FilterSpec.Not(readSpec(in, depth + 1));
                case FILTER_ATTRIBUTES:
                    return new FilterSpec.AttributeMatch(readEnum(in, FilterSpec.AttributeMode.values()),
                            readStrings(in), readStrings(in));
                case FILTER_EXTENSION:
                    return new FilterSpec.Extension(readString(in), readStrings(in));
                default:
                    throw new MalformedFrameException("unknown filter kind " + kind);
            }
        } catch (NullPointerException | IllegalArgumentException e) {
            throw new MalformedFrameException("a bad filter: " + e.getMessage());
        }
    }

    private static List<FilterSpec> readSpecs(final ByteBuf in, final int depth) {
        final int n = readLength(in, 1, false);
        final List<FilterSpec> specs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            specs.add(readSpec(in, depth + 1));
        }
        return specs;
    }

    // ---- requests and results ----

    static void writeSendResult(final ByteBuf out, final SendResult r) {
        writeString(out, r.uniqueId());
        writeString(out, r.topic());
        out.writeInt(r.queueId());
        out.writeLong(r.queueOffset());
        out.writeLong(r.commitLogOffset());
        writeHost(out, r.storeHost());
    }

    static SendResult readSendResult(final ByteBuf in) {
        return new SendResult(readString(in), readString(in), readInt(in), readLong(in), readLong(in), readHost(in));
    }

    static void writeSendResults(final ByteBuf out, final List<SendResult> results) {
        out.writeInt(results.size());
        for (SendResult r : results) {
            writeSendResult(out, r);
        }
    }

    static List<SendResult> readSendResults(final ByteBuf in) {
        final int n = readLength(in, 4, false);
        final List<SendResult> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(readSendResult(in));
        }
        return list;
    }

    static void writePullRequest(final ByteBuf out, final PullRequest r) {
        writeString(out, r.group());
        writeString(out, r.topic());
        out.writeInt(r.queueId());
        out.writeLong(r.offset());
        out.writeInt(r.maxMessages());
        writeFilter(out, r.filter());
        out.writeLong(r.maxWaitMillis());
    }

    /** Reads a pull request whose filter is still a spec: compiling it is the server's, to answer a bad one. */
    static PullRequestSpec readPullRequest(final ByteBuf in) {
        final String group = readString(in);
        final String topic = readString(in);
        if (topic == null) {
            throw new MalformedFrameException("a pull without a topic");
        }
        return new PullRequestSpec(group, topic, readInt(in), readLong(in), readInt(in), readFilter(in),
                readLong(in));
    }

    /** A pull request as read, its filter not yet compiled. */
    record PullRequestSpec(String group, String topic, int queueId, long offset, int maxMessages, FilterSpec filter,
                           long maxWaitMillis) {
        PullRequest compile() {
            return new PullRequest(group, topic, queueId, offset, maxMessages, filter.compile(), maxWaitMillis);
        }
    }

    static void writePullResult(final ByteBuf out, final PullResult r) {
        out.writeByte(r.status().ordinal());
        writeStoredList(out, r.messages());
        out.writeLong(r.nextOffset());
        out.writeLong(r.minOffset());
        out.writeLong(r.maxOffset());
    }

    static PullResult readPullResult(final ByteBuf in) {
        return new PullResult(readEnum(in, PullStatus.values()), readStoredList(in), readLong(in), readLong(in),
                readLong(in));
    }

    static void writePopRequest(final ByteBuf out, final PopRequest r) {
        writeString(out, r.group());
        writeString(out, r.topic());
        writeFilter(out, r.filter());
        out.writeInt(r.maxMessages());
        out.writeLong(r.invisibleMillis());
        out.writeLong(r.maxWaitMillis());
        out.writeByte(r.start().ordinal());
    }

    static PopRequestSpec readPopRequest(final ByteBuf in) {
        final String group = readString(in);
        final String topic = readString(in);
        if (group == null || topic == null) {
            throw new MalformedFrameException("a pop without a group or topic");
        }
        return new PopRequestSpec(group, topic, readFilter(in), readInt(in), readLong(in), readLong(in),
                readEnum(in, PopStart.values()));
    }

    /** A pop request as read, its filter not yet compiled. */
    record PopRequestSpec(String group, String topic, FilterSpec filter, int maxMessages, long invisibleMillis,
                          long maxWaitMillis, PopStart start) {
        PopRequest compile() {
            return new PopRequest(group, topic, filter.compile(), maxMessages, invisibleMillis, maxWaitMillis, start);
        }
    }

    static void writePopResult(final ByteBuf out, final PopResult r) {
        out.writeInt(r.messages().size());
        for (PoppedMessage p : r.messages()) {
            writeStored(out, p.message());
            writeString(out, p.topic());
            writeString(out, p.receipt().sealed());
            out.writeInt(p.reconsumeTimes());
        }
    }

    static PopResult readPopResult(final ByteBuf in) {
        final int n = readLength(in, 4, false);
        final List<PoppedMessage> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            final StoredMessage m = readStored(in);
            final String topic = readString(in);
            final String sealed = readString(in);
            if (sealed == null) {
                throw new MalformedFrameException("a popped message without a receipt");
            }
            list.add(new PoppedMessage(m, topic, new SealedReceipt(sealed), readInt(in)));
        }
        return new PopResult(list);
    }

    static void writeTransactionEnd(final ByteBuf out, final TransactionEnd end) {
        writeString(out, end.producerGroup());
        out.writeLong(end.commitLogOffset());
        writeString(out, end.messageId());
        writeString(out, end.transactionId());
        out.writeByte(end.resolution().ordinal());
        out.writeBoolean(end.fromCheck());
    }

    static TransactionEnd readTransactionEnd(final ByteBuf in) {
        return new TransactionEnd(readString(in), readLong(in), readString(in), readString(in),
                readEnum(in, TransactionResolution.values()), readBoolean(in));
    }

    static void writeRecallHandle(final ByteBuf out, final RecallHandle handle) {
        writeString(out, handle.encode());
    }

    static RecallHandle readRecallHandle(final ByteBuf in) {
        final RecallHandle handle = RecallHandle.decode(readString(in));
        if (handle == null) {
            throw new MalformedFrameException("a bad recall handle");
        }
        return handle;
    }

    static void writeError(final ByteBuf out, final StoreError error, final String text) {
        writeString(out, error.name());
        writeString(out, text);
    }

    /** The error of an error answer; an unknown name (a newer peer) reads as UNAVAILABLE. */
    static StoreError readErrorKind(final ByteBuf in) {
        final String name = readString(in);
        for (StoreError e : StoreError.values()) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        return StoreError.UNAVAILABLE;
    }
}
