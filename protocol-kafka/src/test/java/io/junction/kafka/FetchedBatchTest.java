package io.junction.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

/** The fetched batch is byte for byte what kafka-clients' own builder writes for the same records. */
class FetchedBatchTest {

    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Keys, values and headers null and not, timestamps going back, offsets with gaps, a multi-byte name. */
    private static List<FetchedRecord> records() {
        final List<FetchedRecord> list = new ArrayList<>();
        list.add(new FetchedRecord(100, 1_700_000_000_000L, utf8("k1"), ByteBuffer.wrap(new byte[1024]), List.of()));
        list.add(new FetchedRecord(101, 1_699_999_999_000L, null, ByteBuffer.wrap(utf8("no key")),
                List.of(new RecordHeader("a", utf8("1")), new RecordHeader("ünï", null))));
        list.add(new FetchedRecord(105, 1_700_000_123_456L, utf8("tomb"), null, List.of()));
        final ByteBuffer window = ByteBuffer.wrap(utf8("xxvaluexx")).position(2).limit(7);
        list.add(new FetchedRecord(300, 1_700_000_000_001L, new byte[0], window.slice(),
                List.of(new RecordHeader("dup", utf8("1")), new RecordHeader("dup", utf8("2")))));
        for (int i = 0; i < 200; i++) {
            list.add(new FetchedRecord(400 + i, 1_700_000_000_000L + i * 1000L, utf8("key-" + i),
                    ByteBuffer.wrap(new byte[i * 7]), List.of()));
        }
        return list;
    }

    private static MemoryRecords libraryBatch(final List<FetchedRecord> records) {
        final MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1 << 20), Compression.NONE,
                TimestampType.CREATE_TIME, records.get(0).offset());
        for (FetchedRecord r : records) {
            builder.appendWithOffset(r.offset(), r.timestamp(), r.key() == null ? null : ByteBuffer.wrap(r.key()),
                    r.value() == null ? null : r.value().duplicate(), r.headers().toArray(Header[]::new));
        }
        return builder.build();
    }

    @Test
    void shouldWriteTheBytesKafkaClientsWrites() {
        final List<FetchedRecord> records = records();
        final FetchedBatch batch = new FetchedBatch();
        int expectedSize = 0;
        for (FetchedRecord r : records) {
            expectedSize = batch.sizeWith(r);
            batch.add(r);
            assertThat(batch.sizeInBytes()).isEqualTo(expectedSize);
        }
        final MemoryRecords expected = libraryBatch(records);
        final ByteBuf direct = PooledByteBufAllocator.DEFAULT.directBuffer(batch.sizeInBytes());
        try {
            batch.writeTo(direct);
            final byte[] written = new byte[direct.readableBytes()];
            direct.getBytes(0, written);
            final byte[] wanted = new byte[expected.sizeInBytes()];
            expected.buffer().duplicate().get(wanted);
            assertThat(written).isEqualTo(wanted);
        } finally {
            direct.release();
        }
    }

    @Test
    void shouldReadBackWithAValidCrc() {
        final List<FetchedRecord> records = records();
        final FetchedBatch batch = new FetchedBatch();
        records.forEach(batch::add);
        final MemoryRecords read = batch.toMemoryRecords();
        final List<RecordBatch> batches = new ArrayList<>();
        read.batches().forEach(batches::add);
        assertThat(batches).hasSize(1);
        batches.get(0).ensureValid();
        assertThat(batches.get(0).baseOffset()).isEqualTo(100);
        assertThat(batches.get(0).lastOffset()).isEqualTo(599);
        final List<Record> back = new ArrayList<>();
        batches.get(0).forEach(back::add);
        assertThat(back).hasSize(records.size());
        assertThat(back.get(1).key()).isNull();
        assertThat(back.get(1).headers()[1].key()).isEqualTo("ünï");
        assertThat(back.get(1).headers()[1].value()).isNull();
        assertThat(back.get(2).value()).isNull();
        assertThat(back.get(2).offset()).isEqualTo(105);
        assertThat(back.get(3).timestamp()).isEqualTo(1_700_000_000_001L);
        assertThat(StandardCharsets.UTF_8.decode(back.get(3).value()).toString()).isEqualTo("value");
    }

    @Test
    void shouldBeEmptyWithoutRecords() {
        final FetchedBatch batch = new FetchedBatch();
        assertThat(batch.sizeInBytes()).isZero();
        assertThat(batch.toMemoryRecords().sizeInBytes()).isZero();
    }
}
