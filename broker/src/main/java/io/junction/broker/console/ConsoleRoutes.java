package io.junction.broker.console;

import io.junction.cluster.ClusterNode;
import io.junction.cluster.proxy.groups.GroupedProxy;
import io.junction.core.Messaging;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.http.HttpRoutes;
import io.junction.tenancy.AccessControl;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Puts the console on the HTTP listener: the page at {@value ConsoleAssets#PATH} and its API under {@code /admin/}
 * (behind {@link AdminAccess}). Closing it stops the rate sampler and the console's worker thread.
 */
public final class ConsoleRoutes implements AutoCloseable {

    /** Console requests waiting beyond this are refused (503): a page polls, it does not queue. */
    private static final int MAX_QUEUED = 16;

    private final TrafficHistory traffic;
    private final ExecutorService work;

    private ConsoleRoutes(final TrafficHistory traffic, final ExecutorService work) {
        this.traffic = traffic;
        this.work = work;
    }

    /**
     * @param core     the message core, unobserved (the console's reads are not client traffic)
     * @param cluster  this node's cluster membership, or null when not clustered
     * @param clients  the front-ends' connected clients
     * @param proxy    the proxy's link to its store groups (topic scaling), or null when this node is not a proxy
     */
    public static ConsoleRoutes register(final HttpRoutes routes, final Messaging core, final MeterRegistry registry,
                                         final AccessControl access, final ClusterNode cluster,
                                         final ClientRegistry clients, final GroupedProxy proxy) {
        final TrafficHistory traffic = new TrafficHistory(registry);
        final ExecutorService work = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(MAX_QUEUED), new DefaultThreadFactory("junction-console", true));
        routes.register(ConsoleAssets.PATH, new ConsoleAssets());
        routes.register(OverviewApi.PATH, new AdminAccess(access,
                new OverviewApi(core, registry, traffic, cluster, proxy, work)));
        routes.register(TopicsApi.PATH, new AdminAccess(access, new TopicsApi(core, traffic, proxy == null ? null : proxy::scale)));
        routes.register(StoreGroupsApi.PATH, new AdminAccess(access, new StoreGroupsApi(proxy)));
        routes.register(GroupsApi.PATH, new AdminAccess(access, new GroupsApi(core, clients)));
        routes.register(MessagesApi.PATH, new AdminAccess(access, new MessagesApi(core)));
        routes.register(ConnectionsApi.PATH, new AdminAccess(access, new ConnectionsApi(clients)));
        return new ConsoleRoutes(traffic, work);
    }

    @Override
    public void close() {
        traffic.close();
        work.shutdownNow();
    }
}
