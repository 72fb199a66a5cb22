package io.junction.core.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file mapped while filled and unmapped once sealed: readers racing the seal read exact bytes and never fault. */
class SealableMappedFileTest {
    private static final int LONGS = 64 * 1024;

    @TempDir
    Path dir;

    @Test
    void shouldServeExactBytesToConcurrentReadersWhileItIsSealed() throws Exception {
        final SealableMappedFile file = SealableMappedFile.open(dir.resolve("f"), LONGS * 8L, false);
        final MappedByteBuffer map = file.writable();
        for (int i = 0; i < LONGS; i++) {
            map.putLong(i * 8, i * 31L + 7);
        }
        final AtomicBoolean sealed = new AtomicBoolean();
        final ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            final List<Future<Integer>> readers = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                readers.add(pool.submit(() -> {
                    int afterSeal = 0;
                    for (int round = 0; afterSeal < 200; round++) {
                        final boolean wasSealed = sealed.get();
                        final int from = (round * 997) % (LONGS - 64);
                        final ByteBuffer copy = file.copy(from * 8, 64 * 8);
                        for (int i = 0; i < 64; i++) {
                            assertEquals((from + i) * 31L + 7, copy.getLong(i * 8));
                        }
                        assertEquals((from + 5) * 31L + 7, file.getLong((from + 5) * 8));
                        file.force();
                        afterSeal += wasSealed ? 1 : 0;
                    }
                    return afterSeal;
                }));
            }
            file.seal();
            sealed.set(true);
            for (Future<Integer> r : readers) {
                assertTrue(r.get() >= 200);
            }
        } finally {
            pool.shutdown();
        }
        assertTrue(file.sealed());
        assertNull(file.writable(), "no map to write into once sealed");
        // Writes after sealing (recovery cutting entries) go through the channel and read back.
        file.write(8, ByteBuffer.allocate(8).putLong(0, -1L));
        assertEquals(-1L, file.getLong(8));
        assertEquals(2 * 31L + 7, file.getLong(16));
        file.close();
        Files.delete(dir.resolve("f"));
        assertEquals(0, file.copy(0, 8).remaining(), "a deleted file reads as nothing");
    }

    @Test
    void shouldOpenFullFilesSealed() throws IOException {
        final Path path = dir.resolve("g");
        try (SealableMappedFile file = SealableMappedFile.open(path, 4096, false)) {
            file.writable().putInt(100, 42);
            file.force();
            assertFalse(file.sealed());
        }
        try (SealableMappedFile reopened = SealableMappedFile.open(path, 4096, true)) {
            assertTrue(reopened.sealed());
            assertEquals(42, reopened.getInt(100));
        }
    }
}
