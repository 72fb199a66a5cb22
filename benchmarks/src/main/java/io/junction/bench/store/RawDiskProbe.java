package io.junction.bench.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;

/**
 * The ceiling the store is compared with: sequential {@link FileChannel} writes of 1 MiB blocks to a fresh file, then
 * one {@code force(false)}; the rate counts the force, so the bytes are on the device, as they are after the store's
 * final close.
 */
final class RawDiskProbe {
    static final int BLOCK = 1 << 20;

    /**
     * @param bytes      bytes written
     * @param writeNanos time of the write calls
     * @param forceNanos time of the final force
     */
    record Result(long bytes, long writeNanos, long forceNanos) {
        long totalNanos() {
            return writeNanos + forceNanos;
        }

        double bytesPerSecond() {
            return bytes / (totalNanos() / 1e9);
        }
    }

    private RawDiskProbe() {
    }

    /** Writes {@code totalBytes} to a new file in {@code dir}, forces it, deletes it. */
    static Result run(final Path dir, final long totalBytes) throws IOException {
        final ByteBuffer block = ByteBuffer.allocateDirect(BLOCK);
        // Incompressible content, in case the medium compresses or deduplicates.
        final SplittableRandom random = new SplittableRandom(42);
        while (block.remaining() >= Long.BYTES) {
            block.putLong(random.nextLong());
        }
        final Path file = dir.resolve("raw-disk-probe.dat");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long written = 0;
            final long start = System.nanoTime();
            while (written < totalBytes) {
                block.clear().limit((int) Math.min(BLOCK, totalBytes - written));
                while (block.hasRemaining()) {
                    written += channel.write(block);
                }
            }
            final long wrote = System.nanoTime();
            channel.force(false);
            final long forced = System.nanoTime();
            return new Result(written, wrote - start, forced - wrote);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
