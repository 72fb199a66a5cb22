package io.junction.cluster.contract;

import io.junction.core.message.StoredMessage;
import io.netty.buffer.ByteBuf;

/**
 * A transaction check-back the leader hands to another member, whose front-ends ask their own connected producers:
 * a frame of kind {@link #KIND} (outside the {@link Operation} codes) that has no answer. The producer's answer comes
 * back as an ordinary {@code endTransaction}, which that member forwards to the leader.
 *
 * <pre>
 * | length (4) | request id (8, unused: 0) | KIND (1) | producer group (string) | check times (4) | half message |
 * </pre>
 * (strings and the half message as {@link WireFormat} and {@link ContractCodec#writeStored} write them).
 */
final class TransactionCheckFrame {
    /** The frame kind; far from the operation codes so that new operations never meet it. */
    static final byte KIND = 0x40;

    /** What a check-back frame carries. */
    record Check(String producerGroup, int checkTimes, StoredMessage halfMessage) {
    }

    private TransactionCheckFrame() {
    }

    /** Writes a whole frame, length included. */
    static void write(final ByteBuf out, final String producerGroup, final StoredMessage half, final int checkTimes) {
        final int start = out.writerIndex();
        out.writeInt(0);
        out.writeLong(0);
        out.writeByte(KIND);
        WireFormat.writeString(out, producerGroup);
        out.writeInt(checkTimes);
        ContractCodec.writeStored(out, half);
        out.setInt(start + ContractFrame.LENGTH_OFFSET, out.writerIndex() - start - ContractFrame.LENGTH_FIELD);
    }

    /** Reads the body after the kind byte. */
    static Check read(final ByteBuf in) {
        final String group = WireFormat.readString(in);
        final int times = WireFormat.readInt(in);
        return new Check(group, times, ContractCodec.readStored(in));
    }
}
