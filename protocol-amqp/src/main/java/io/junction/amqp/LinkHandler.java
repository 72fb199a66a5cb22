package io.junction.amqp;

import java.util.concurrent.CompletableFuture;
import org.apache.qpid.proton.engine.Delivery;

/**
 * What the connection tells one attached link; kept as the proton link's context. All calls run on the connection's
 * event loop.
 */
interface LinkHandler {

    /** The peer changed the link's flow state (a consumer link got credit or a drain request). */
    default void onFlow() {
    }

    /** A delivery arrived (producer links) or its remote state or settlement changed (consumer links). */
    void onDelivery(Delivery delivery);

    /**
     * The link ends: the peer detached it ({@code closed} tells a close from a plain detach), its session or connection
     * ended, or the broker gave up on it. Called once; the handler releases what it holds.
     */
    void onEnd(boolean closed);

    /**
     * After {@link #onEnd}: completes once what the link leaves behind is settled in the core (a consumer's acks
     * stored, what it held given back). The peer's detach, end or close is answered only then, so a client that closed a
     * consumer finds its acknowledged messages consumed and the rest back in the queue.
     */
    default CompletableFuture<?> settled() {
        return CompletableFuture.completedFuture(null);
    }

    /** The channel became writable again: consumer links go on delivering. */
    default void onWritable() {
    }
}
