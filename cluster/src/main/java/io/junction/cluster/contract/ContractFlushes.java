package io.junction.cluster.contract;

import io.netty.handler.flush.FlushConsolidationHandler;

/**
 * How both ends of a contract connection flush. Requests are written by the front-ends' event loops and answers by
 * the store's completion threads, one frame per message, each written and flushed as a task on the connection's event
 * loop: flushed one by one, every frame was its own write system call (and its own read on the other side). Holding
 * the flush until the frames queued on the loop meanwhile are written makes one system call of them all.
 */
final class ContractFlushes {
    /** Most frames held back before a flush while more are on their way (as the Remoting front-end's). */
    private static final int FLUSH_AFTER_WRITES = 64;

    private ContractFlushes() {
    }

    /** A new handler for one connection's pipeline (it keeps per-connection state). */
    static FlushConsolidationHandler handler() {
        return new FlushConsolidationHandler(FLUSH_AFTER_WRITES, true);
    }
}
