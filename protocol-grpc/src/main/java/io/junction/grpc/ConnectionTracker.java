package io.junction.grpc;

import io.grpc.Attributes;
import io.grpc.ServerTransportFilter;
import io.junction.spi.metrics.ConnectionCounter;

/** Counts the gRPC front-end's open connections (HTTP/2 transports). */
final class ConnectionTracker extends ServerTransportFilter {
    private static final Attributes.Key<Boolean> COUNTED = Attributes.Key.create("junction.counted");

    private final ConnectionCounter counter;

    ConnectionTracker(final ConnectionCounter counter) {
        this.counter = counter;
    }

    @Override
    public Attributes transportReady(final Attributes attributes) {
        counter.opened();
        return attributes.toBuilder().set(COUNTED, Boolean.TRUE).build();
    }

    @Override
    public void transportTerminated(final Attributes attributes) {
        if (attributes != null && Boolean.TRUE.equals(attributes.get(COUNTED))) {
            counter.closed();
        }
    }
}
