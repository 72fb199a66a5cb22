package io.junction.cluster.contract;

import io.junction.core.Messaging;
import io.junction.core.engine.MessageStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The view of a contract server that serves one store outside a group (tests, tools): it leads itself under the id
 * {@value #SELF} at the server's own address, and exports the tables when the store is a {@link MessageStore}.
 */
final class StandaloneView implements StoreNodeView {
    static final String SELF = "self";
    private final Supplier<? extends Messaging> target;
    /** The server's address once bound ({@code host:port}). */
    private volatile String address;

    private StandaloneView(final Supplier<? extends Messaging> target) {
        this.target = target;
    }

    static StandaloneView of(final Supplier<? extends Messaging> target) {
        return new StandaloneView(target);
    }

    void bound(final InetSocketAddress at) {
        address = at.getHostString() + ":" + at.getPort();
    }

    @Override
    public StoreTopology topology() {
        final String self = address;
        return new StoreTopology(SELF, self == null ? Map.of() : Map.of(SELF, self));
    }

    @Override
    public Map<String, byte[]> tables() throws IOException {
        if (target.get() instanceof MessageStore store) {
            return store.exportTables();
        }
        return Map.of();
    }

    @Override
    public List<String> consumerGroups() {
        return target.get() instanceof MessageStore store ? store.liveConsumerGroups() : List.of();
    }
}
