package io.junction.core.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.core.io.MappedWindow;
import io.junction.core.message.Message;
import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CommitLog#readRecords}: runs of records read through a window of small regions come back exactly as one
 * {@link CommitLog#readRecord} each would give them, whatever the regions, segments and gaps between them, and a
 * damaged record inside a run is never served while its neighbours are.
 */
class CommitLogRunReadTest {
    private static final int SEGMENT = 64 * 1024;
    private static final InetSocketAddress HOST = new InetSocketAddress("127.0.0.1", 9876);

    @TempDir
    Path dir;

    private final List<Long> offsets = new ArrayList<>();
    private final List<String> bodies = new ArrayList<>();
    private final List<Integer> sizes = new ArrayList<>();

    @Test
    void shouldReadRunsAcrossRegionsAndSegmentsExactlyAsSingleReads() throws IOException {
        final MappedWindow window = new MappedWindow(8 * 1024, 3);
        final List<ByteBuffer> kept = new ArrayList<>();
        try (CommitLog log = CommitLog.open(dir, SEGMENT, window.segmentFiles())) {
            log.recover(0, SEGMENT, (view, pos, size) -> { });
            write(log, 6L * SEGMENT, 3 * 1024, new Random(5));
            assertTrue(log.segments().size() >= 6);
            final Random random = new Random(9);
            for (int from = 0; from < offsets.size(); ) {
                // Runs of 1 to 80 records, some with every other record left out (not adjacent in the log).
                final int n = Math.min(offsets.size() - from, 1 + random.nextInt(80));
                final int step = random.nextInt(4) == 0 ? 2 : 1;
                final long[] wanted = new long[n];
                final int[] wantedSizes = new int[n];
                final ByteBuffer[] out = new ByteBuffer[n];
                int count = 0;
                for (int i = from; i < from + n * step && i < offsets.size(); i += step) {
                    wantedSizes[count] = sizes.get(i);
                    wanted[count++] = offsets.get(i);
                }
                log.readRecords(wanted, wantedSizes, count, out);
                assertTrue(window.mappedRegions() <= 3, "mapped " + window.mappedRegions());
                for (int i = 0; i < count; i++) {
                    assertNotNull(out[i], "record at " + wanted[i]);
                    assertEquals(log.readRecord(wanted[i]), out[i]);
                    assertTrue(out[i].isReadOnly());
                    kept.add(out[i]);
                }
                from += Math.max(1, (count - 1) * step + 1);
            }
        }
        assertEquals(0, window.mappedRegions(), "closing the log unmaps everything");
        // Copies: still readable, and right, once the log is closed and nothing is mapped.
        int at = 0;
        for (ByteBuffer record : kept) {
            final StoredMessage m = RecordCodec.decode(record);
            while (offsets.get(at) != m.commitLogOffset()) {
                at++;
            }
            assertEquals(bodies.get(at), StandardCharsets.UTF_8.decode(m.body()).toString());
        }
    }

    @Test
    void shouldReadManyRunsThatLieNextToEachOtherExactlyAsSingleReads() throws IOException {
        // Segments of 4 MiB: a read of up to 1,500 records of up to 3 KiB makes many 64 KiB runs next to each other (a
        // consumer catching up); some reads go on into the next segment.
        final int segment = 4 * 1024 * 1024;
        try (CommitLog log = CommitLog.open(dir, segment, new MappedWindow(1024 * 1024, 4).segmentFiles())) {
            log.recover(0, segment, (view, pos, size) -> { });
            write(log, segment, 9L * 1024 * 1024, 3 * 1024, new Random(6));
            final Random random = new Random(8);
            for (int from = 0; from < offsets.size(); ) {
                final int n = Math.min(offsets.size() - from, 1 + random.nextInt(1500));
                final long[] wanted = new long[n];
                final int[] wantedSizes = new int[n];
                for (int i = 0; i < n; i++) {
                    wanted[i] = offsets.get(from + i);
                    wantedSizes[i] = sizes.get(from + i);
                }
                if (n > 10 && random.nextBoolean()) {
                    wantedSizes[n / 2] += 5; // a wrong entry: the record is read alone, its neighbours in their runs
                }
                final ByteBuffer[] out = new ByteBuffer[n];
                log.readRecords(wanted, wantedSizes, n, out);
                for (int i = 0; i < n; i++) {
                    assertEquals(log.readRecord(wanted[i]), out[i], "record " + (from + i));
                    assertEquals(bodies.get(from + i),
                            StandardCharsets.UTF_8.decode(RecordCodec.decode(out[i]).body()).toString());
                }
                from += n;
            }
            assertEquals(0, log.damagedRecords());
        }
    }

    @Test
    void shouldSkipNegativeOffsetsAndAnswerNullPastTheEnd() throws IOException {
        try (CommitLog log = CommitLog.open(dir, SEGMENT, new MappedWindow(8 * 1024, 2).segmentFiles())) {
            log.recover(0, SEGMENT, (view, pos, size) -> { });
            write(log, 3000, 100, new Random(1));
            final ByteBuffer untouched = ByteBuffer.allocate(1);
            final ByteBuffer[] out = {null, untouched, null, ByteBuffer.allocate(1)};
            log.readRecords(new long[] {offsets.get(0), -1, offsets.get(1), log.writeOffset()},
                    new int[] {sizes.get(0), 0, sizes.get(1), 100}, 4, out);
            assertEquals(log.readRecord(offsets.get(0)), out[0]);
            assertSame(untouched, out[1]);
            assertEquals(log.readRecord(offsets.get(1)), out[2]);
            assertNull(out[3]);
        }
    }

    @Test
    void shouldNeverServeADamagedRecordInsideARunOfAnEarlierRun() throws IOException {
        final MappedWindow window = new MappedWindow(64 * 1024, 2);
        long end;
        try (CommitLog log = CommitLog.open(dir, SEGMENT, window.segmentFiles())) {
            log.recover(0, SEGMENT, (view, pos, size) -> { });
            write(log, 10_000, 500, new Random(2));
            end = log.writeOffset();
        }
        // A flipped bit in the body of the fourth record: only its CRC can tell (records of an earlier run).
        final long damaged = offsets.get(3);
        try (FileChannel file = FileChannel.open(dir.resolve(String.format("%020d", 0)), StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            final ByteBuffer b = ByteBuffer.allocate(1);
            final long at = damaged + RecordLayout.bodyLengthOffset(0) + 4 + 7;
            file.read(b, at);
            file.write(ByteBuffer.wrap(new byte[] {(byte) (b.get(0) ^ 0x10)}), at);
        }
        try (CommitLog log = CommitLog.open(dir, SEGMENT, window.segmentFiles())) {
            log.recover(end, SEGMENT, (view, pos, size) -> { }); // a clean shutdown: nothing re-verified
            final long[] wanted = offsets.stream().mapToLong(Long::longValue).toArray();
            for (int pass = 0; pass < 2; pass++) {
                final ByteBuffer[] out = new ByteBuffer[wanted.length];
                log.readRecords(wanted, sizes.stream().mapToInt(Integer::intValue).toArray(), wanted.length, out);
                for (int i = 0; i < wanted.length; i++) {
                    if (wanted[i] == damaged) {
                        assertNull(out[i], "the damaged record");
                    } else {
                        assertNotNull(out[i], "record " + i);
                        assertEquals(bodies.get(i),
                                StandardCharsets.UTF_8.decode(RecordCodec.decode(out[i]).body()).toString());
                    }
                }
            }
            assertEquals(1, log.damagedRecords(), "reported once");
        }
    }

    @Test
    void shouldServeRecordsWhoseEntrySizesAreWrongAsSingleReadsDo() throws IOException {
        try (CommitLog log = CommitLog.open(dir, SEGMENT, new MappedWindow(8 * 1024, 2).segmentFiles())) {
            log.recover(0, SEGMENT, (view, pos, size) -> { });
            write(log, 6000, 200, new Random(4));
            final long[] wanted = offsets.stream().mapToLong(Long::longValue).toArray();
            final int[] claimed = sizes.stream().mapToInt(Integer::intValue).toArray();
            claimed[2] += 7; // an entry claiming more than its record: the run ends there and the next record is alone
            claimed[5] -= 9; // and less
            claimed[8] = 0;
            final ByteBuffer[] out = new ByteBuffer[wanted.length];
            log.readRecords(wanted, claimed, wanted.length, out);
            for (int i = 0; i < wanted.length; i++) {
                assertEquals(log.readRecord(wanted[i]), out[i], "record " + i);
            }
            assertEquals(0, log.damagedRecords());
        }
    }

    /** Appends records with bodies of up to {@code maxBody} bytes until the log reaches {@code until}. */
    private void write(final CommitLog log, final long until, final int maxBody, final Random random)
            throws IOException {
        write(log, SEGMENT, until, maxBody, random);
    }

    private void write(final CommitLog log, final int segment, final long until, final int maxBody,
                       final Random random) throws IOException {
        for (int i = 0; log.writeOffset() < until; i++) {
            final String body = i + ":" + "x".repeat(random.nextInt(maxBody));
            final ByteBuffer record = RecordCodec.encode(Message.builder("t").body(
                    body.getBytes(StandardCharsets.UTF_8)).build(), HOST);
            if (record.remaining() + RecordLayout.BLANK_LENGTH > log.remainingInSegment(log.writeOffset())) {
                log.roll();
            }
            log.ensureSegment(log.writeOffset() - log.writeOffset() % segment);
            RecordCodec.seal(record, 0, i, log.writeOffset(), 1000 + i, 0);
            offsets.add(log.writeOffset());
            bodies.add(body);
            sizes.add(record.remaining());
            log.write(record);
        }
    }
}
