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
import io.junction.core.message.Message;
import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import io.junction.core.txn.TransactionEnd;
import io.junction.core.txn.TransactionResolution;
import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes and reads the contract's request and result types in frame bodies, field by field ({@link WireFormat}). A
 * stored message crosses as its fields plus its whole record (RocketMQ's layout, {@link RecordLayout}), whose body is
 * not sent twice. Filters cross as their spec ({@link FilterCodec}).
 *
 * @see ContractFrame
 */
final class ContractCodec {
    private static final byte BODY_IN_RECORD = 0;
    private static final byte BODY_SEPARATE = 1;

    private ContractCodec() {
    }

    // ---- messages ----

    static void writeMessage(final ByteBuf out, final Message m) {
        WireFormat.writeString(out, m.topic());
        out.writeInt(m.queueId());
        WireFormat.writeBytes(out, m.body());
        out.writeInt(m.flag());
        WireFormat.writeProperties(out, m.properties());
        out.writeInt(m.sysFlag());
        out.writeLong(m.bornTimestamp());
        WireFormat.writeHost(out, m.bornHost());
        out.writeInt(m.reconsumeTimes());
    }

    static Message readMessage(final ByteBuf in) {
        final String topic = WireFormat.readString(in);
        if (topic == null) {
            throw new MalformedFrameException("a message without a topic");
        }
        return new Message(topic, WireFormat.readInt(in), WireFormat.readBytes(in), WireFormat.readInt(in), WireFormat.readProperties(in), WireFormat.readInt(in),
                WireFormat.readLong(in), WireFormat.readHost(in), WireFormat.readInt(in));
    }

    static void writeMessages(final ByteBuf out, final List<Message> messages) {
        out.writeInt(messages.size());
        for (Message m : messages) {
            writeMessage(out, m);
        }
    }

    static List<Message> readMessages(final ByteBuf in) {
        final int n = WireFormat.readLength(in, 4, false);
        final List<Message> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(readMessage(in));
        }
        return list;
    }

    static void writeStored(final ByteBuf out, final StoredMessage m) {
        WireFormat.writeString(out, m.topic());
        out.writeInt(m.queueId());
        out.writeLong(m.queueOffset());
        out.writeLong(m.commitLogOffset());
        out.writeInt(m.size());
        out.writeInt(m.flag());
        out.writeInt(m.sysFlag());
        out.writeLong(m.bornTimestamp());
        WireFormat.writeHost(out, m.bornHost());
        out.writeLong(m.storeTimestamp());
        WireFormat.writeHost(out, m.storeHost());
        out.writeInt(m.reconsumeTimes());
        out.writeLong(m.preparedTransactionOffset());
        WireFormat.writeProperties(out, m.properties());
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
        final String topic = WireFormat.readString(in);
        if (topic == null) {
            throw new MalformedFrameException("a stored message without a topic");
        }
        final int queueId = WireFormat.readInt(in);
        final long queueOffset = WireFormat.readLong(in);
        final long logOffset = WireFormat.readLong(in);
        final int size = WireFormat.readInt(in);
        final int flag = WireFormat.readInt(in);
        final int sysFlag = WireFormat.readInt(in);
        final long bornTimestamp = WireFormat.readLong(in);
        final InetSocketAddress bornHost = WireFormat.readHost(in);
        final long storeTimestamp = WireFormat.readLong(in);
        final InetSocketAddress storeHost = WireFormat.readHost(in);
        final int reconsumeTimes = WireFormat.readInt(in);
        final long preparedOffset = WireFormat.readLong(in);
        final Map<String, String> properties = WireFormat.readProperties(in);
        final ByteBuffer record = ByteBuffer.wrap(WireFormat.readBytes(in));
        final ByteBuffer body;
        final byte bodyKind = WireFormat.readByte(in);
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
            body = ByteBuffer.wrap(WireFormat.readBytes(in)).asReadOnlyBuffer();
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
        final int n = WireFormat.readLength(in, 4, false);
        final List<StoredMessage> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(readStored(in));
        }
        return list;
    }

    // ---- requests and results ----

    static void writeSendResult(final ByteBuf out, final SendResult r) {
        WireFormat.writeString(out, r.uniqueId());
        WireFormat.writeString(out, r.topic());
        out.writeInt(r.queueId());
        out.writeLong(r.queueOffset());
        out.writeLong(r.commitLogOffset());
        WireFormat.writeHost(out, r.storeHost());
    }

    static SendResult readSendResult(final ByteBuf in) {
        return new SendResult(WireFormat.readString(in), WireFormat.readString(in), WireFormat.readInt(in), WireFormat.readLong(in), WireFormat.readLong(in), WireFormat.readHost(in));
    }

    static void writeSendResults(final ByteBuf out, final List<SendResult> results) {
        out.writeInt(results.size());
        for (SendResult r : results) {
            writeSendResult(out, r);
        }
    }

    static List<SendResult> readSendResults(final ByteBuf in) {
        final int n = WireFormat.readLength(in, 4, false);
        final List<SendResult> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(readSendResult(in));
        }
        return list;
    }

    static void writePullRequest(final ByteBuf out, final PullRequest r) {
        WireFormat.writeString(out, r.group());
        WireFormat.writeString(out, r.topic());
        out.writeInt(r.queueId());
        out.writeLong(r.offset());
        out.writeInt(r.maxMessages());
        FilterCodec.writeFilter(out, r.filter());
        out.writeLong(r.maxWaitMillis());
    }

    /** Reads a pull request whose filter is still a spec: compiling it is the server's, to answer a bad one. */
    static PullRequestSpec readPullRequest(final ByteBuf in) {
        final String group = WireFormat.readString(in);
        final String topic = WireFormat.readString(in);
        if (topic == null) {
            throw new MalformedFrameException("a pull without a topic");
        }
        return new PullRequestSpec(group, topic, WireFormat.readInt(in), WireFormat.readLong(in), WireFormat.readInt(in), FilterCodec.readFilter(in),
                WireFormat.readLong(in));
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
        return new PullResult(WireFormat.readEnum(in, PullStatus.values()), readStoredList(in), WireFormat.readLong(in), WireFormat.readLong(in),
                WireFormat.readLong(in));
    }

    static void writePopRequest(final ByteBuf out, final PopRequest r) {
        WireFormat.writeString(out, r.group());
        WireFormat.writeString(out, r.topic());
        FilterCodec.writeFilter(out, r.filter());
        out.writeInt(r.maxMessages());
        out.writeLong(r.invisibleMillis());
        out.writeLong(r.maxWaitMillis());
        out.writeByte(r.start().ordinal());
        out.writeInt(r.heldQueues().size());
        for (int queue : r.heldQueues()) {
            out.writeInt(queue);
        }
    }

    static PopRequestSpec readPopRequest(final ByteBuf in) {
        final String group = WireFormat.readString(in);
        final String topic = WireFormat.readString(in);
        if (group == null || topic == null) {
            throw new MalformedFrameException("a pop without a group or topic");
        }
        final FilterSpec filter = FilterCodec.readFilter(in);
        final int maxMessages = WireFormat.readInt(in);
        final long invisibleMillis = WireFormat.readLong(in);
        final long maxWaitMillis = WireFormat.readLong(in);
        final PopStart start = WireFormat.readEnum(in, PopStart.values());
        final int heldCount = WireFormat.readLength(in, 4, false);
        final Set<Integer> held = new HashSet<>();
        for (int i = 0; i < heldCount; i++) {
            held.add(WireFormat.readInt(in));
        }
        return new PopRequestSpec(group, topic, filter, maxMessages, invisibleMillis, maxWaitMillis, start, held);
    }

    /** A pop request as read, its filter not yet compiled. */
    record PopRequestSpec(String group, String topic, FilterSpec filter, int maxMessages, long invisibleMillis,
                          long maxWaitMillis, PopStart start, Set<Integer> heldQueues) {
        PopRequest compile() {
            return new PopRequest(group, topic, filter.compile(), maxMessages, invisibleMillis, maxWaitMillis, start,
                    heldQueues);
        }
    }

    static void writePopResult(final ByteBuf out, final PopResult r) {
        out.writeInt(r.messages().size());
        for (PoppedMessage p : r.messages()) {
            writeStored(out, p.message());
            WireFormat.writeString(out, p.topic());
            WireFormat.writeString(out, p.receipt().sealed());
            out.writeInt(p.reconsumeTimes());
        }
    }

    static PopResult readPopResult(final ByteBuf in) {
        final int n = WireFormat.readLength(in, 4, false);
        final List<PoppedMessage> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            final StoredMessage m = readStored(in);
            final String topic = WireFormat.readString(in);
            final String sealed = WireFormat.readString(in);
            if (sealed == null) {
                throw new MalformedFrameException("a popped message without a receipt");
            }
            list.add(new PoppedMessage(m, topic, new SealedReceipt(sealed), WireFormat.readInt(in)));
        }
        return new PopResult(list);
    }

    static void writeTransactionEnd(final ByteBuf out, final TransactionEnd end) {
        WireFormat.writeString(out, end.producerGroup());
        out.writeLong(end.commitLogOffset());
        WireFormat.writeString(out, end.messageId());
        WireFormat.writeString(out, end.transactionId());
        out.writeByte(end.resolution().ordinal());
        out.writeBoolean(end.fromCheck());
    }

    static TransactionEnd readTransactionEnd(final ByteBuf in) {
        return new TransactionEnd(WireFormat.readString(in), WireFormat.readLong(in), WireFormat.readString(in), WireFormat.readString(in),
                WireFormat.readEnum(in, TransactionResolution.values()), WireFormat.readBoolean(in));
    }

    static void writeRecallHandle(final ByteBuf out, final RecallHandle handle) {
        WireFormat.writeString(out, handle.encode());
    }

    static RecallHandle readRecallHandle(final ByteBuf in) {
        final RecallHandle handle = RecallHandle.decode(WireFormat.readString(in));
        if (handle == null) {
            throw new MalformedFrameException("a bad recall handle");
        }
        return handle;
    }

    static void writeError(final ByteBuf out, final StoreError error, final String text) {
        WireFormat.writeString(out, error.name());
        WireFormat.writeString(out, text);
    }

    /** The error of an error answer; an unknown name (a newer peer) reads as UNAVAILABLE. */
    static StoreError readErrorKind(final ByteBuf in) {
        final String name = WireFormat.readString(in);
        for (StoreError e : StoreError.values()) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        return StoreError.UNAVAILABLE;
    }
}
