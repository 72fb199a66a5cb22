package io.junction.core.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Segment files read through a bounded window of mapped regions (real files, real maps, real unmapping). */
class MappedWindowTest {
    private static final int REGION = 16 * 1024;
    private static final int SEGMENT = 256 * 1024;
    private static final int SEGMENTS = 6;

    @TempDir
    Path dir;
    private final List<SegmentFile> segments = new ArrayList<>();
    private final List<byte[]> contents = new ArrayList<>();

    private MappedWindow window(final int maxRegions) throws IOException {
        final MappedWindow window = new MappedWindow(REGION, maxRegions);
        final Random random = new Random(7);
        for (int s = 0; s < SEGMENTS; s++) {
            final SegmentFile segment = window.segmentFiles().open(dir.resolve("seg" + s), (long) s * SEGMENT,
                    SEGMENT);
            final byte[] bytes = new byte[SEGMENT];
            random.nextBytes(bytes);
            segment.write(0, ByteBuffer.wrap(bytes));
            segments.add(segment);
            contents.add(bytes);
        }
        return window;
    }

    @BeforeEach
    void noSegments() {
        segments.clear();
        contents.clear();
    }

    @AfterEach
    void close() throws IOException {
        for (SegmentFile s : segments) {
            s.close();
        }
    }

    @Test
    void shouldCopyRangesAcrossRegionsFromTheFileWithoutMappingThem() throws IOException {
        final MappedWindow window = window(4);
        final Random random = new Random(11);
        for (int n = 0; n < 200; n++) {
            final int s = random.nextInt(SEGMENTS);
            final int length = 1 + random.nextInt(3 * REGION);
            final int position = random.nextInt(SEGMENT - length + 1);
            final byte[] copy = new byte[length];
            assertTrue(segments.get(s).copy(position, ByteBuffer.wrap(copy)));
            assertArrayEquals(Arrays.copyOfRange(contents.get(s), position, position + length), copy);
        }
        assertEquals(0, window.mappedRegions());
        segments.get(0).close();
        assertFalse(segments.get(0).copy(0, ByteBuffer.allocate(16)));
    }

    @Test
    void shouldNeverMapMoreRegionsThanTheBoundWhileReadingAcrossManySegments() throws IOException {
        final MappedWindow window = window(3);
        int reads = 0;
        for (int s = 0; s < SEGMENTS; s++) {
            for (int pos = 0; pos + 1000 <= SEGMENT; pos += 1000) {
                try (SegmentRead read = segments.get(s).read(pos, 1000)) {
                    assertArrayEquals(expected(s, pos, 1000), bytes(read, pos, 1000));
                    assertTrue(window.mappedRegions() <= 3, "mapped " + window.mappedRegions());
                }
                reads++;
            }
        }
        assertEquals(SEGMENTS * (SEGMENT / 1000), reads);
        assertEquals(3, window.mappedRegions(), "the window stays full, with the last regions read");
    }

    @Test
    void shouldReadColdAndCrossingRangesExactly() throws IOException {
        final MappedWindow window = window(2);
        final Random random = new Random(11);
        for (int i = 0; i < 2000; i++) {
            final int s = random.nextInt(SEGMENTS);
            // Short ranges inside a region, ranges crossing a region's end (copied), long ones (mapped on their own).
            final int length = switch (i % 3) {
                case 0 -> 1 + random.nextInt(2000);
                case 1 -> REGION + random.nextInt(4 * REGION);
                default -> 1 + random.nextInt(SEGMENT / 2);
            };
            final int pos = random.nextInt(SEGMENT - length + 1);
            try (SegmentRead read = segments.get(s).read(pos, length)) {
                assertTrue(read.covers(pos, length));
                assertArrayEquals(expected(s, pos, length), bytes(read, pos, length), "segment " + s + " at " + pos);
            }
            assertTrue(window.mappedRegions() <= 2, "mapped " + window.mappedRegions());
        }
    }

    @Test
    void shouldNeverUnmapARegionWhileAConcurrentReaderHoldsIt() throws Exception {
        final int maxRegions = 2;
        final MappedWindow window = window(maxRegions);
        final int threads = 4;
        final AtomicInteger mostMapped = new AtomicInteger();
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            final List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                final Random random = new Random(t);
                done.add(pool.submit(() -> {
                    int checked = 0;
                    for (int i = 0; i < 3000; i++) {
                        final int s = random.nextInt(SEGMENTS);
                        final int pos = random.nextInt(SEGMENT - 512);
                        try (SegmentRead read = segments.get(s).read(pos, 512)) {
                            // Read the bytes twice around a yield, so other threads evict this region meanwhile.
                            final byte[] first = bytes(read, pos, 512);
                            Thread.yield();
                            final byte[] again = bytes(read, pos, 512);
                            mostMapped.accumulateAndGet(window.mappedRegions(), Math::max);
                            assertArrayEquals(expected(s, pos, 512), first);
                            assertArrayEquals(first, again);
                            checked++;
                        }
                    }
                    return checked;
                }));
            }
            for (Future<Integer> f : done) {
                assertEquals(3000, f.get());
            }
        } finally {
            pool.shutdown();
        }
        // A region evicted while read is unmapped when its last read closes: at most one extra per reader.
        assertTrue(mostMapped.get() <= maxRegions + threads, "mapped at most " + mostMapped.get());
        assertTrue(window.mappedRegions() <= maxRegions, "mapped after the readers " + window.mappedRegions());
    }

    @Test
    void shouldKeepAReadValidAfterItsSegmentClosesAndUnmapWhenItCloses() throws IOException {
        final MappedWindow window = window(4);
        final SegmentFile segment = segments.get(0);
        final SegmentRead read = segment.read(100, 100);
        assertEquals(1, window.mappedRegions());
        segment.close();
        assertArrayEquals(expected(0, 100, 100), bytes(read, 100, 100));
        assertEquals(1, window.mappedRegions());
        read.close();
        read.close(); // twice gives back once
        assertEquals(0, window.mappedRegions());
        assertNull(segment.read(100, 100), "a closed segment has nothing to lend");
    }

    private byte[] expected(final int segment, final int pos, final int length) {
        final byte[] b = new byte[length];
        System.arraycopy(contents.get(segment), pos, b, 0, length);
        return b;
    }

    private static byte[] bytes(final SegmentRead read, final int pos, final int length) {
        final byte[] b = new byte[length];
        read.buffer().get(pos - read.start(), b);
        return b;
    }
}
