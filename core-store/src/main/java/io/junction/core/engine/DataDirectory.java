package io.junction.core.engine;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The data directory's layout, its exclusive lock (one broker per directory) and the clean-shutdown marker: a file
 * named {@code abort} exists while the store runs and is removed by a clean close, so finding it at start means the
 * last run crashed.
 */
final class DataDirectory implements AutoCloseable {
    static final String ABORT_MARKER = "abort";

    private final Path root;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final boolean crashed;

    private DataDirectory(final Path root, final FileChannel lockChannel, final FileLock lock, final boolean crashed) {
        this.root = root;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.crashed = crashed;
    }

    static DataDirectory open(final Path root) {
        try {
            Files.createDirectories(root);
            Files.createDirectories(root.resolve("config"));
        } catch (IOException e) {
            throw new StoreException(StoreError.IO_ERROR, "cannot create data directory " + root + ": "
                    + e.getClass().getSimpleName() + " " + e.getMessage(), e);
        }
        if (!Files.isWritable(root)) {
            throw new StoreException(StoreError.IO_ERROR, "data directory " + root + " is not writable");
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(root.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            final FileLock lock = channel.tryLock();
            if (lock == null) {
                throw new StoreException(StoreError.IO_ERROR, "data directory " + root
                        + " is in use by another broker process");
            }
            final Path marker = root.resolve(ABORT_MARKER);
            final boolean crashed = Files.exists(marker);
            if (!crashed) {
                Files.createFile(marker);
            }
            return new DataDirectory(root, channel, lock, crashed);
        } catch (OverlappingFileLockException e) {
            closeQuietly(channel);
            throw new StoreException(StoreError.IO_ERROR, "data directory " + root + " is already open here", e);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new StoreException(StoreError.IO_ERROR, "cannot lock data directory " + root + ": "
                    + e.getMessage(), e);
        } catch (StoreException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    private static void closeQuietly(final FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // Already failing; the original error is the one to report.
            }
        }
    }

    Path root() {
        return root;
    }

    Path commitLog() {
        return root.resolve("commitlog");
    }

    Path consumeQueues() {
        return root.resolve("consumequeue");
    }

    Path index() {
        return root.resolve("index");
    }

    Path config(final String name) {
        return root.resolve("config").resolve(name);
    }

    /** Whether the previous run ended without a clean close. */
    boolean crashed() {
        return crashed;
    }

    /** Marks the close as clean. */
    void markClean() throws IOException {
        Files.deleteIfExists(root.resolve(ABORT_MARKER));
    }

    @Override
    public void close() throws IOException {
        lock.release();
        lockChannel.close();
    }
}
