package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Three in-JVM stores as the store groups g1 (the metadata group), g2 and g3 of a proxy, for tests that reach the
 * metadata group through a wrapper of their own (one that holds a write back, or loses every compare-and-set).
 */
final class ThreeStores implements AutoCloseable {
    private final List<MessageStore> stores = new ArrayList<>();

    ThreeStores(final Path dir) {
        for (int i = 0; i < 3; i++) {
            stores.add(MessageStore.open(TestStores.small(dir.resolve("s" + i)).build()));
        }
    }

    /** g1's store, which holds the metadata. */
    MessageStore metadata() {
        return stores.get(0);
    }

    /** A proxy over g1..g3, reaching g1 through {@code metadata}. */
    GroupedMessaging proxy(final Messaging metadata) {
        final Map<String, Messaging> groups = new LinkedHashMap<>();
        groups.put("g1", metadata);
        groups.put("g2", stores.get(1));
        groups.put("g3", stores.get(2));
        return new GroupedMessaging(groups);
    }

    @Override
    public void close() {
        stores.forEach(MessageStore::close);
    }
}
