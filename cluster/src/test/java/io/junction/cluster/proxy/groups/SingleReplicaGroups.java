package io.junction.cluster.proxy.groups;

import io.junction.cluster.contract.ContractServer;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Store groups of one replica each, for the grouped proxy's tests: real stores behind real contract servers on
 * loopback (no Raft: what these tests look at is the proxy's placement and routing), and proxies over them.
 * Closed proxies first, then servers, then stores.
 */
final class SingleReplicaGroups implements AutoCloseable {
    static final int MAX_MESSAGE = 256 * 1024;
    /** How long a proxy waits for its groups to answer at start, and the tests for changes to show. */
    static final Duration SETTLE = Duration.ofSeconds(20);

    private final Path dir;
    private final List<MessageStore> stores = new ArrayList<>();
    private final List<ContractServer> servers = new ArrayList<>();
    private final List<GroupedProxy> proxies = new ArrayList<>();

    SingleReplicaGroups(final Path dir, final int groups) {
        this.dir = dir;
        for (int i = 0; i < groups; i++) {
            addStore();
        }
    }

    /** Opens one more store behind its own contract server: the next group ({@code g<n>}). */
    void addStore() {
        final MessageStore store = MessageStore.open(TestStores.small(dir.resolve("s" + stores.size())).build());
        stores.add(store);
        servers.add(ContractServer.start("127.0.0.1", 0, () -> store, MAX_MESSAGE));
    }

    MessageStore store(final int index) {
        return stores.get(index);
    }

    List<MessageStore> stores() {
        return stores;
    }

    /** The group of the store at {@code index}, named {@code name}. */
    StoreGroup group(final String name, final int index) {
        return new StoreGroup(name, List.of("127.0.0.1:" + servers.get(index).address().getPort()));
    }

    /** Groups {@code g1..g<count>} over the first {@code count} stores. */
    List<StoreGroup> first(final int count) {
        final List<StoreGroup> list = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            list.add(group("g" + (i + 1), i));
        }
        return list;
    }

    /** A proxy over groups {@code g1..g<count>}, as the messaging its front-ends hold. */
    GroupedMessaging proxyOverFirst(final int count) {
        return (GroupedMessaging) proxy(first(count)).messaging();
    }

    /** What a call of the contract completed with, waiting at most 20 s. */
    static <T> T result(final CompletableFuture<T> call) throws Exception {
        return call.get(20, TimeUnit.SECONDS);
    }

    /** Starts a proxy over {@code groups}, closed with the others. */
    GroupedProxy proxy(final List<StoreGroup> groups) {
        final GroupedProxy proxy = GroupedProxy.start(groups, MAX_MESSAGE, SETTLE);
        proxies.add(proxy);
        return proxy;
    }

    @Override
    public void close() {
        proxies.forEach(GroupedProxy::close);
        servers.forEach(ContractServer::close);
        stores.forEach(MessageStore::close);
    }
}
