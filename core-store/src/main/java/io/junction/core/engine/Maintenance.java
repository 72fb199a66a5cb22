package io.junction.core.engine;

import io.junction.core.group.ConsumerRegistry;
import io.junction.core.meta.ConsumerOffsets;
import io.junction.core.pop.PopService;
import io.junction.core.stats.TrafficCounters;
import io.junction.core.txn.TransactionService;
import java.io.IOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's periodic jobs and their periods: POP revive ticks on a thread of their own (a revive may wait for its
 * appends), everything else on the one maintenance thread. A failing job is logged and runs again next period; it
 * never stops its schedule.
 */
final class Maintenance {
    private static final Logger LOG = LoggerFactory.getLogger(Maintenance.class);
    /** Bounds of the period at which due transaction check-backs are looked for. */
    private static final long TRANSACTION_SCAN_MIN_MILLIS = 100;
    private static final long TRANSACTION_SCAN_MAX_MILLIS = 1000;

    private final StoreConfig config;
    private final LongSupplier clock;
    private final CheckpointWriter checkpoints;
    private final ConsumerOffsets offsets;
    private final Availability availability;
    private final Retention retention;
    private final ConsumerRegistry registry;
    private final TrafficCounters traffic;
    private final PopService pops;
    private final TransactionService transactions;

    Maintenance(final StoreConfig config, final LongSupplier clock, final CheckpointWriter checkpoints,
                final ConsumerOffsets offsets, final Availability availability, final Retention retention,
                final ConsumerRegistry registry, final TrafficCounters traffic, final PopService pops,
                final TransactionService transactions) {
        this.config = config;
        this.clock = clock;
        this.checkpoints = checkpoints;
        this.offsets = offsets;
        this.availability = availability;
        this.retention = retention;
        this.registry = registry;
        this.traffic = traffic;
        this.pops = pops;
        this.transactions = transactions;
    }

    /**
     * Schedules every job; the executors belong to the store, which stops them at close.
     *
     * @param follower a follower's store: the jobs that append on their own (revive, check-backs, retention) wait
     */
    void start(final ScheduledExecutorService reviver, final ScheduledExecutorService maintenance,
               final boolean follower) {
        final long revive = config.popReviveInterval().toMillis();
        if (!follower) {
            reviver.scheduleWithFixedDelay(this::reviveQuietly, revive, revive, TimeUnit.MILLISECONDS);
        }
        maintenance.scheduleWithFixedDelay(this::checkpointQuietly, 1, 1, TimeUnit.SECONDS);
        final long transactionScan = transactionScanMillis(config);
        if (!follower) {
            maintenance.scheduleWithFixedDelay(this::checkTransactionsQuietly, transactionScan, transactionScan,
                    TimeUnit.MILLISECONDS);
        }
        maintenance.scheduleWithFixedDelay(this::persistOffsetsQuietly, 5, 5, TimeUnit.SECONDS);
        maintenance.scheduleWithFixedDelay(availability::watchDisk, 0, 1, TimeUnit.SECONDS);
        maintenance.scheduleWithFixedDelay(registry::expire, 10, 10, TimeUnit.SECONDS);
        if (!follower) {
            maintenance.scheduleWithFixedDelay(retention::apply, 10, 10, TimeUnit.SECONDS);
        }
        maintenance.scheduleAtFixedRate(() -> traffic.sample(clock.getAsLong()), 1, 1, TimeUnit.SECONDS);
    }

    /**
     * How often due transaction check-backs are looked for: once a second, more often when checks are configured
     * only a few seconds apart (so a check comes within a fifth of its delay of its time), never more than ten times a
     * second.
     */
    private static long transactionScanMillis(final StoreConfig config) {
        final long shortest = Math.min(config.transactionFirstCheck().toMillis(),
                config.transactionCheckInterval().toMillis());
        return Math.max(TRANSACTION_SCAN_MIN_MILLIS, Math.min(TRANSACTION_SCAN_MAX_MILLIS, shortest / 5));
    }

    private void reviveQuietly() {
        try {
            pops.revive();
        } catch (RuntimeException e) {
            LOG.error("POP revive failed; will retry", e);
        }
    }

    private void checkpointQuietly() {
        try {
            checkpoints.write();
        } catch (IOException | RuntimeException e) {
            LOG.error("Writing the checkpoint failed (recovery will re-verify more of the log)", e);
        }
    }

    private void checkTransactionsQuietly() {
        try {
            transactions.check();
        } catch (RuntimeException e) {
            LOG.error("Transaction check-back failed; will retry", e);
        }
    }

    private void persistOffsetsQuietly() {
        try {
            offsets.persistIfChanged();
        } catch (IOException | RuntimeException e) {
            LOG.error("Saving consumer offsets failed; will retry", e);
        }
    }
}
