package io.junction.cluster.contract;

import io.junction.core.Messaging;
import io.junction.core.engine.MessageStore;
import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The view of a contract server that serves one store outside a group (tests, tools): it leads itself under the id
 * {@value #SELF}, with no published address, and exports the tables when the store is a {@link MessageStore}.
 */
final class StandaloneView implements StoreNodeView {
    static final String SELF = "self";
    private final Supplier<? extends Messaging> target;

    private StandaloneView(final Supplier<? extends Messaging> target) {
        this.target = target;
    }

    static StoreNodeView of(final Supplier<? extends Messaging> target) {
        return new StandaloneView(target);
    }

    @Override
    public StoreTopology topology() {
        return new StoreTopology(SELF, Map.of());
    }

    @Override
    public Map<String, byte[]> tables() throws IOException {
        if (target.get() instanceof MessageStore store) {
            return store.exportTables();
        }
        return Map.of();
    }
}
