package io.junction.core.engine;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The store's own threads, all daemons named {@code junction-store-*}: a reader pool (reads and queries never run
 * on a caller's event loop), one admin thread (metadata changes in order), one maintenance thread, one timer for
 * long-poll time-outs, one POP revive thread. Stopped in stages, because closing must drain them in order.
 */
final class StoreThreads {
    final ExecutorService readPool;
    final ExecutorService adminPool;
    final ScheduledExecutorService maintenance;
    final ScheduledExecutorService timeouts;
    final ScheduledExecutorService reviver;

    StoreThreads() {
        this.maintenance = Executors.newSingleThreadScheduledExecutor(named("junction-store-maintenance"));
        final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, named("junction-store-timer"));
        timer.setRemoveOnCancelPolicy(true); // a cancelled long poll's time-out must not keep the read alive
        this.timeouts = timer;
        this.readPool = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()),
                named("junction-store-read"));
        this.adminPool = Executors.newSingleThreadExecutor(named("junction-store-admin"));
        this.reviver = Executors.newSingleThreadScheduledExecutor(named("junction-pop-revive"));
    }

    /** First at close: no revive may append while the log is being closed. */
    void stopRevive() throws InterruptedException {
        reviver.shutdown();
        reviver.awaitTermination(5, TimeUnit.SECONDS);
    }

    /** Before the last checkpoint, so no periodic one races it. */
    void stopMaintenance() throws InterruptedException {
        maintenance.shutdown();
        maintenance.awaitTermination(5, TimeUnit.SECONDS);
    }

    /** Last: reads and admin changes under way finish; parked time-outs are dropped. */
    void stopPools() throws InterruptedException {
        readPool.shutdown();
        adminPool.shutdown();
        timeouts.shutdownNow();
        readPool.awaitTermination(5, TimeUnit.SECONDS);
        adminPool.awaitTermination(5, TimeUnit.SECONDS);
    }

    private static ThreadFactory named(final String name) {
        final AtomicInteger n = new AtomicInteger();
        return r -> {
            final Thread t = new Thread(r, n.getAndIncrement() == 0 ? name : name + "-" + n.get());
            t.setDaemon(true);
            return t;
        };
    }
}
