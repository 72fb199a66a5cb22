package io.junction.core.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.core.io.MappedWindow;
import io.junction.core.message.Message;
import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A log over many segments read through a window of a few small regions: every record back exactly, in order. */
class CommitLogWindowTest {
    private static final int SEGMENT = 64 * 1024;
    private static final InetSocketAddress HOST = new InetSocketAddress("127.0.0.1", 9876);

    @TempDir
    Path dir;

    @Test
    void shouldReadAndScanEveryRecordOfManySegmentsWithinTheWindow() throws IOException {
        final MappedWindow window = new MappedWindow(8 * 1024, 3);
        final List<Long> offsets = new ArrayList<>();
        final List<String> bodies = new ArrayList<>();
        try (CommitLog log = CommitLog.open(dir, SEGMENT, window.segmentFiles())) {
            log.recover(0, SEGMENT, (view, pos, size) -> { });
            final Random random = new Random(3);
            for (int i = 0; log.writeOffset() < 12L * SEGMENT; i++) {
                // Bodies up to 6 KiB: many records cross a region's end, some by more than the overlap.
                final String body = i + ":" + "x".repeat(random.nextInt(6 * 1024));
                final ByteBuffer record = RecordCodec.encode(Message.builder("t").body(
                        body.getBytes(StandardCharsets.UTF_8)).build(), HOST);
                if (record.remaining() + RecordLayout.BLANK_LENGTH > log.remainingInSegment(log.writeOffset())) {
                    log.roll();
                }
                log.ensureSegment(log.writeOffset() - log.writeOffset() % SEGMENT);
                RecordCodec.seal(record, 0, i, log.writeOffset(), 1000 + i, 0);
                offsets.add(log.writeOffset());
                bodies.add(body);
                log.write(record);
            }
            assertTrue(log.segments().size() >= 12);

            for (int i = 0; i < offsets.size(); i++) {
                final ByteBuffer record = log.readRecord(offsets.get(i));
                assertNotNull(record, "record " + i);
                final StoredMessage m = RecordCodec.decode(record);
                assertEquals(bodies.get(i), StandardCharsets.UTF_8.decode(m.body()).toString());
                assertTrue(window.mappedRegions() <= 3, "mapped " + window.mappedRegions());
            }
            final List<Long> scanned = new ArrayList<>();
            final long end = log.scan(0, log.writeOffset(), (view, pos, size) -> {
                scanned.add(RecordCodec.decode(view.duplicate().position(pos).limit(pos + size)).commitLogOffset());
                assertTrue(window.mappedRegions() <= 3, "mapped " + window.mappedRegions());
            });
            assertEquals(log.writeOffset(), end);
            assertEquals(offsets, scanned);
        }
        assertEquals(0, window.mappedRegions(), "closing the log unmaps everything");
    }

    @Test
    void shouldRecoverTheSameRecordsThroughTheWindow() throws IOException {
        final MappedWindow window = new MappedWindow(8 * 1024, 2);
        final List<Long> written = new ArrayList<>();
        long end;
        try (CommitLog log = CommitLog.open(dir, SEGMENT, window.segmentFiles())) {
            log.recover(0, SEGMENT, (view, pos, size) -> { });
            for (int i = 0; log.writeOffset() < 3L * SEGMENT + 5000; i++) {
                final ByteBuffer record = RecordCodec.encode(Message.builder("t").body(new byte[300 + i % 900])
                        .build(), HOST);
                if (record.remaining() + RecordLayout.BLANK_LENGTH > log.remainingInSegment(log.writeOffset())) {
                    log.roll();
                }
                log.ensureSegment(log.writeOffset() - log.writeOffset() % SEGMENT);
                RecordCodec.seal(record, 0, i, log.writeOffset(), 1000 + i, 0);
                written.add(log.writeOffset());
                log.write(record);
            }
            end = log.writeOffset();
        }
        final List<Long> recovered = new ArrayList<>();
        try (CommitLog log = CommitLog.open(dir, SEGMENT, window.segmentFiles())) {
            assertEquals(end, log.recover(0, SEGMENT, (view, pos, size) ->
                    recovered.add(RecordCodec.decode(view.duplicate().position(pos).limit(pos + size))
                            .commitLogOffset())));
        }
        assertEquals(written, recovered);
        assertEquals(0, window.mappedRegions());
    }
}
