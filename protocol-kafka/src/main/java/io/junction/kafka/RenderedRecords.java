package io.junction.kafka;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * One partition's records in a Fetch response: the record batches its reads rendered ({@link FetchedBatch#render}),
 * each in a direct buffer of its own, in offset order (a partition's records may be several batches, as in Kafka's own
 * log). The connection splices the buffers into the response frame as they are ({@link ByteBufWritable}): the records
 * are not copied again on the event loop.
 *
 * <p>The buffers are reference counted and this object owns them: the fetch until it completes its response, then
 * whoever holds the response, which releases them once ({@link #releaseIn}) after writing it or when dropping it.
 */
final class RenderedRecords implements BaseRecords {
    private final List<ByteBuf> batches = new ArrayList<>(2);
    private int bytes;

    /** Takes ownership of a rendered batch whose offsets follow those added before. */
    void add(final ByteBuf batch) {
        batches.add(batch);
        bytes += batch.readableBytes();
    }

    boolean isEmpty() {
        return batches.isEmpty();
    }

    @Override
    public int sizeInBytes() {
        return bytes;
    }

    /** The batches in offset order; they stay owned here. */
    List<ByteBuf> batches() {
        return batches;
    }

    /** Releases every batch; the records are empty afterwards. */
    void release() {
        for (int i = 0; i < batches.size(); i++) {
            batches.get(i).release();
        }
        batches.clear();
        bytes = 0;
    }

    /** A heap copy as kafka-clients' records (tests, and any serializer other than {@link ByteBufWritable}). */
    MemoryRecords toMemoryRecords() {
        final byte[] copy = new byte[bytes];
        int at = 0;
        for (ByteBuf b : batches) {
            b.getBytes(b.readerIndex(), copy, at, b.readableBytes());
            at += b.readableBytes();
        }
        return MemoryRecords.readableRecords(ByteBuffer.wrap(copy));
    }

    @Override
    public RecordsSend<? extends BaseRecords> toSend() {
        return toMemoryRecords().toSend();
    }

    /** Bytes of rendered records in {@code response}: what a frame splices in rather than writes. */
    static int bytesIn(final ApiMessage response) {
        final int[] total = {0};
        forEachIn(response, r -> total[0] += r.sizeInBytes());
        return total[0];
    }

    /** Releases the rendered records {@code response} holds, if any: once, by whoever holds it last. */
    static void releaseIn(final ApiMessage response) {
        forEachIn(response, RenderedRecords::release);
    }

    /** Each partition's rendered records in {@code response}; only a Fetch response has any. */
    private static void forEachIn(final ApiMessage response, final Consumer<RenderedRecords> action) {
        if (response instanceof FetchResponseData fetch) {
            for (FetchResponseData.FetchableTopicResponse t : fetch.responses()) {
                for (FetchResponseData.PartitionData p : t.partitions()) {
                    if (p.records() instanceof RenderedRecords r) {
                        action.accept(r);
                    }
                }
            }
        }
    }
}
