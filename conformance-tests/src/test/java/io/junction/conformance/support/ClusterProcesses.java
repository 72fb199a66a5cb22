package io.junction.conformance.support;

import java.util.ArrayList;
import java.util.List;

/**
 * The store and proxy processes of a cluster test and the clients it opened against them, stopped together at the
 * end: clients first, newest first (a client of a killed node may fail to close: nothing to tell it), then proxies,
 * then stores.
 */
public final class ClusterProcesses implements AutoCloseable {
    private final List<RunningBroker> stores = new ArrayList<>();
    private final List<RunningBroker> proxies = new ArrayList<>();
    private final List<AutoCloseable> clients = new ArrayList<>();

    public List<RunningBroker> stores() {
        return stores;
    }

    public List<RunningBroker> proxies() {
        return proxies;
    }

    public List<AutoCloseable> clients() {
        return clients;
    }

    @Override
    public void close() {
        for (int i = clients.size() - 1; i >= 0; i--) {
            try {
                clients.get(i).close();
            } catch (Exception e) {
                // a client of a killed or stopped node: nothing to tell it
            }
        }
        proxies.forEach(RunningBroker::close);
        stores.forEach(RunningBroker::close);
    }
}
