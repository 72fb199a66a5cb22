package io.junction.core.engine;

import io.junction.core.io.MappedWindow;
import io.junction.core.txn.TransactionResolution;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything the store is configured with, fixed at open time.
 *
 * @param dataDir                  root of all store files
 * @param segmentSize              commit-log segment size in bytes
 * @param queueFileEntries         entries per consume-queue file
 * @param indexFileEntries         entries per index file (and as many hash slots / 4)
 * @param flushMode                ASYNC or SYNC
 * @param flushInterval            ASYNC: longest time a write stays unforced
 * @param flushThresholdBytes      ASYNC: force early once this many bytes are unforced
 * @param maxMessageSize           largest body accepted
 * @param autoCreateTopics         create unknown topics on first send
 * @param defaultQueueCount        queues of an auto-created topic
 * @param retention                segments older than this are deleted
 * @param maxDiskUsedRatio         above this share of the disk used, the oldest segments are deleted
 * @param diskFullRatio            above this share of the disk used, sends are refused (DISK_FULL)
 * @param storeHost                address written into records (and offset ids)
 * @param observer                 metrics sink
 * @param autoCreateGroups         create unknown consumer groups on first use (else GROUP_NOT_FOUND)
 * @param transactionFirstCheck    an unresolved half message is first checked back with its producer group this
 *                                 long after it was stored (RocketMQ's {@code transactionTimeOut}), unless it sets
 *                                 its own delay (CHECK_IMMUNITY_TIME_IN_SECONDS)
 * @param transactionCheckInterval and again this long after each check (RocketMQ's
 *                                 {@code transactionCheckInterval})
 * @param transactionMaxChecks     check-backs of a half message before {@code transactionTimeoutResolution} applies
 *                                 (RocketMQ's {@code transactionCheckMax})
 * @param transactionTimeoutResolution COMMIT or ROLLBACK: what happens to a half message checked back
 *                                 {@code transactionMaxChecks} times without an answer
 * @param popReviveInterval        how often popped messages past their invisible time are looked for and redelivered
 * @param mappedWindow             bytes of the commit log mapped at once (and so the most of it kept resident); see
 *                                 {@link MappedWindow}
 * @param maxDelay                 longest delivery delay a timer (delayed) message may ask for; keep it below
 *                                 {@code retention}, or a pending timer's record can be deleted before it fires
 */
public record StoreConfig(
        Path dataDir,
        int segmentSize,
        int queueFileEntries,
        int indexFileEntries,
        FlushMode flushMode,
        Duration flushInterval,
        int flushThresholdBytes,
        int maxMessageSize,
        boolean autoCreateTopics,
        int defaultQueueCount,
        Duration retention,
        double maxDiskUsedRatio,
        double diskFullRatio,
        InetSocketAddress storeHost,
        StoreObserver observer,
        Duration maxDelay,
        boolean autoCreateGroups,
        Duration transactionFirstCheck,
        Duration transactionCheckInterval,
        int transactionMaxChecks,
        TransactionResolution transactionTimeoutResolution,
        Duration popReviveInterval,
        long mappedWindow) {

    public static final int DEFAULT_SEGMENT_SIZE = 1 << 30;
    /** Smallest {@code mappedWindow}: sixteen regions of 64 KiB. */
    public static final long MIN_MAPPED_WINDOW = 1 << 20;

    public StoreConfig {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(flushMode, "flushMode");
        if (segmentSize < 64 * 1024) {
            throw new IllegalArgumentException("segment size " + segmentSize + " below 64 KiB");
        }
        if (maxMessageSize < 1 || maxMessageSize > segmentSize / 2) {
            throw new IllegalArgumentException("max message size " + maxMessageSize
                    + " must be between 1 and half the segment size");
        }
        if (queueFileEntries < 16 || indexFileEntries < 16) {
            throw new IllegalArgumentException("queue and index files need at least 16 entries");
        }
        if (defaultQueueCount < 1) {
            throw new IllegalArgumentException("default queue count must be positive");
        }
        observer = observer == null ? StoreObserver.NONE : observer;
        Objects.requireNonNull(maxDelay, "maxDelay");
        Objects.requireNonNull(transactionFirstCheck, "transactionFirstCheck");
        Objects.requireNonNull(transactionCheckInterval, "transactionCheckInterval");
        if (!positive(transactionFirstCheck) || !positive(transactionCheckInterval) || transactionMaxChecks < 0) {
            throw new IllegalArgumentException("transaction first check and check interval must be positive and max "
                    + "checks >= 0");
        }
        Objects.requireNonNull(popReviveInterval, "popReviveInterval");
        if (!positive(popReviveInterval)) {
            throw new IllegalArgumentException("POP revive interval must be positive");
        }
        if (mappedWindow < MIN_MAPPED_WINDOW) {
            throw new IllegalArgumentException("mapped window " + mappedWindow + " below 1 MiB");
        }
        if (transactionTimeoutResolution == null || transactionTimeoutResolution == TransactionResolution.UNKNOWN) {
            throw new IllegalArgumentException("transaction timeout resolution must be COMMIT or ROLLBACK");
        }
        if (maxDelay.isNegative() || maxDelay.isZero()) {
            throw new IllegalArgumentException("max delay must be positive");
        }
    }

    private static boolean positive(final Duration d) {
        return !d.isNegative() && !d.isZero();
    }

    /** The defaults for a store under {@code dataDir}. */
    public static Builder builder(final Path dataDir) {
        return new Builder(dataDir);
    }

    /** Builder with the production defaults. */
    public static final class Builder {
        private final Path dataDir;
        private int segmentSize = DEFAULT_SEGMENT_SIZE;
        private int queueFileEntries = 300_000;
        private int indexFileEntries = 2_000_000;
        private FlushMode flushMode = FlushMode.ASYNC;
        private Duration flushInterval = Duration.ofMillis(500);
        private int flushThresholdBytes = 16 * 4096;
        private int maxMessageSize = 4 * 1024 * 1024;
        private boolean autoCreateTopics = true;
        private int defaultQueueCount = 4;
        private Duration retention = Duration.ofHours(72);
        private double maxDiskUsedRatio = 0.75;
        private double diskFullRatio = 0.90;
        private InetSocketAddress storeHost = new InetSocketAddress("127.0.0.1", 9876);
        private StoreObserver observer = StoreObserver.NONE;
        private Duration maxDelay = Duration.ofHours(24);
        private boolean autoCreateGroups = true;
        // RocketMQ's defaults (transactionTimeOut, transactionCheckInterval, transactionCheckMax); like its broker,
        // a half message still unresolved after the last check is dropped (rolled back).
        private Duration transactionFirstCheck = Duration.ofSeconds(6);
        private Duration transactionCheckInterval = Duration.ofSeconds(30);
        private int transactionMaxChecks = 15;
        private TransactionResolution transactionTimeoutResolution = TransactionResolution.ROLLBACK;
        private Duration popReviveInterval = Duration.ofMillis(100);
        private long mappedWindow = MappedWindow.DEFAULT_SIZE;

        private Builder(final Path dataDir) {
            this.dataDir = dataDir;
        }

        public Builder segmentSize(final int v) {
            segmentSize = v;
            return this;
        }

        public Builder queueFileEntries(final int v) {
            queueFileEntries = v;
            return this;
        }

        public Builder indexFileEntries(final int v) {
            indexFileEntries = v;
            return this;
        }

        public Builder flushMode(final FlushMode v) {
            flushMode = v;
            return this;
        }

        public Builder flushInterval(final Duration v) {
            flushInterval = v;
            return this;
        }

        public Builder flushThresholdBytes(final int v) {
            flushThresholdBytes = v;
            return this;
        }

        public Builder maxMessageSize(final int v) {
            maxMessageSize = v;
            return this;
        }

        public Builder autoCreateTopics(final boolean v) {
            autoCreateTopics = v;
            return this;
        }

        public Builder defaultQueueCount(final int v) {
            defaultQueueCount = v;
            return this;
        }

        public Builder retention(final Duration v) {
            retention = v;
            return this;
        }

        public Builder maxDiskUsedRatio(final double v) {
            maxDiskUsedRatio = v;
            return this;
        }

        public Builder diskFullRatio(final double v) {
            diskFullRatio = v;
            return this;
        }

        public Builder storeHost(final InetSocketAddress v) {
            storeHost = v;
            return this;
        }

        public Builder observer(final StoreObserver v) {
            observer = v;
            return this;
        }

        public Builder autoCreateGroups(final boolean v) {
            autoCreateGroups = v;
            return this;
        }

        public Builder transactionFirstCheck(final Duration v) {
            transactionFirstCheck = v;
            return this;
        }

        public Builder transactionCheckInterval(final Duration v) {
            transactionCheckInterval = v;
            return this;
        }

        public Builder transactionMaxChecks(final int v) {
            transactionMaxChecks = v;
            return this;
        }

        public Builder transactionTimeoutResolution(final TransactionResolution v) {
            transactionTimeoutResolution = v;
            return this;
        }

        public Builder mappedWindow(final long v) {
            mappedWindow = v;
            return this;
        }

        public Builder popReviveInterval(final Duration v) {
            popReviveInterval = v;
            return this;
        }

        public Builder maxDelay(final Duration v) {
            maxDelay = v;
            return this;
        }

        public StoreConfig build() {
            return new StoreConfig(dataDir, segmentSize, queueFileEntries, indexFileEntries, flushMode,
                    flushInterval, flushThresholdBytes, maxMessageSize, autoCreateTopics, defaultQueueCount,
                    retention, maxDiskUsedRatio, diskFullRatio, storeHost, observer, maxDelay, autoCreateGroups,
                    transactionFirstCheck, transactionCheckInterval, transactionMaxChecks,
                    transactionTimeoutResolution, popReviveInterval, mappedWindow);
        }
    }
}
