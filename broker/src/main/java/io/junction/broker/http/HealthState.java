package io.junction.broker.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.spi.Endpoint;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * What {@code /health} reports: the broker's phase and the endpoints that are listening. Written by the broker's
 * lifecycle thread, read by event loops.
 */
public final class HealthState {

    /** The broker's phase; only {@link #UP} answers 200. */
    public enum Status { STARTING, UP, STOPPING }

    private volatile Status status = Status.STARTING;
    private volatile List<Endpoint> listeners = List.of();
    /** A cluster node's "do I take writes now"; null on a single node (which always does while up). */
    private volatile BooleanSupplier writable;

    /** A proxy's "do I reach my store group's leader now"; null elsewhere. */
    private volatile BooleanSupplier leaderReached;

    /** This broker is a proxy: health also tells whether it reaches its store group's leader (it can serve). */
    public void reachesLeader(final BooleanSupplier reaches) {
        this.leaderReached = reaches;
    }

    /** This broker is a cluster node: health also tells whether it takes writes (it leads its group). */
    public void writable(final BooleanSupplier acceptsWrites) {
        this.writable = acceptsWrites;
    }

    /** Every listener is bound: health turns 200. */
    public void up(final List<Endpoint> endpoints) {
        listeners = List.copyOf(endpoints);
        status = Status.UP;
    }

    /** A listener came up while others are still starting. */
    public void listening(final List<Endpoint> endpoints) {
        listeners = List.copyOf(endpoints);
    }

    /** Shutdown began: health turns 503 so load balancers stop sending. */
    public void stopping() {
        status = Status.STOPPING;
    }

    public Status status() {
        return status;
    }

    public List<Endpoint> listeners() {
        return listeners;
    }

    /**
     * {@code {"status":"UP","listeners":{"http":"http://127.0.0.1:8080"}}}; a cluster node adds
     * {@code "acceptsWrites":true|false} after the status, a proxy {@code "reachesLeader":true|false}.
     */
    String toJson() {
        final ObjectNode json = JsonReplies.JSON.createObjectNode().put("status", status.name());
        final BooleanSupplier canWrite = writable;
        if (canWrite != null) {
            json.put("acceptsWrites", status == Status.UP && canWrite.getAsBoolean());
        }
        final BooleanSupplier reaches = leaderReached;
        if (reaches != null) {
            json.put("reachesLeader", status == Status.UP && reaches.getAsBoolean());
        }
        final ObjectNode named = json.putObject("listeners");
        for (Endpoint endpoint : listeners) {
            named.put(endpoint.name(), endpoint.address());
        }
        return json.toString();
    }
}
