package io.junction.core.engine;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the store takes work: it runs between its start and its close, and refuses sends while its disk is above
 * the configured ratio (watched once a second, so a send never asks the file system).
 */
final class Availability {
    private static final Logger LOG = LoggerFactory.getLogger(Availability.class);

    private final Path root;
    private final double diskFullRatio;
    private volatile boolean running;
    private volatile boolean diskFull;

    Availability(final Path root, final double diskFullRatio) {
        this.root = root;
        this.diskFullRatio = diskFullRatio;
    }

    boolean running() {
        return running;
    }

    void started() {
        running = true;
    }

    void stopped() {
        running = false;
    }

    boolean diskFull() {
        return diskFull;
    }

    /** The error of a call made while the store is not running. */
    static StoreException notRunning() {
        return new StoreException(StoreError.UNAVAILABLE, "store is not running");
    }

    /** A future failed with {@link #notRunning()}, for calls that answer with one. */
    static <T> CompletableFuture<T> refused() {
        return CompletableFuture.failedFuture(notRunning());
    }

    /** Looks at the disk's usage and refuses or accepts sends from now on (the maintenance thread, each second). */
    void watchDisk() {
        try {
            final FileStore store = Files.getFileStore(root);
            final double used = 1.0 - (double) store.getUsableSpace() / store.getTotalSpace();
            final boolean full = used >= diskFullRatio;
            if (full != diskFull) {
                LOG.warn(full ? "Disk {} is {}% used: refusing sends" : "Disk {} back to {}% used: accepting sends",
                        root, Math.round(used * 100));
                diskFull = full;
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot read disk usage of {}", root, e);
        }
    }
}
