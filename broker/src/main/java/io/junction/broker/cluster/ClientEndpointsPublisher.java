package io.junction.broker.cluster;

import io.junction.core.Messaging;
import io.junction.spi.Endpoint;
import io.junction.spi.cluster.ClusterEndpoints;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes this node's client-facing addresses (the front-ends whose clients take a list of nodes: gRPC, Remoting) in
 * the replicated key-value configs ({@link ClusterEndpoints}), so every node's front-ends can list the whole cluster.
 *
 * <p>A write needs a leader, which may be changing when the node starts: a background thread checks every
 * {@value #CHECK_MILLIS} ms that the replicated values are this node's and writes those that are not (a restart on
 * other ports, an election that cut a write). The check reads local state only.
 */
public final class ClientEndpointsPublisher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClientEndpointsPublisher.class);
    /** The front-ends whose addresses are published. */
    private static final List<String> PUBLISHED = List.of("grpc", "remoting");
    private static final long CHECK_MILLIS = 2000;

    private final Messaging.KvConfigs kv;
    private final Map<String, String> values;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        final Thread t = new Thread(r, "junction-cluster-endpoints");
        t.setDaemon(true);
        return t;
    });

    private ClientEndpointsPublisher(final Messaging.KvConfigs kv, final Map<String, String> values) {
        this.kv = kv;
        this.values = values;
    }

    /**
     * Starts publishing.
     *
     * @param memberIds the node ids of {@code cluster.members}, in order
     * @param endpoints the started front-ends' endpoints; those of other front-ends are ignored
     */
    public static ClientEndpointsPublisher start(final Messaging messaging, final String nodeId,
                                                 final List<String> memberIds, final List<Endpoint> endpoints) {
        final Map<String, String> values = endpoints.stream().filter(e -> PUBLISHED.contains(e.name()))
                .collect(Collectors.toMap(e -> ClusterEndpoints.key(nodeId, e.name()), Endpoint::address,
                        (a, b) -> a, LinkedHashMap::new));
        values.put(ClusterEndpoints.MEMBERS_KEY, String.join(",", memberIds));
        final ClientEndpointsPublisher publisher = new ClientEndpointsPublisher(messaging.kvConfigs(), values);
        publisher.thread.scheduleWithFixedDelay(publisher::publish, 0, CHECK_MILLIS, TimeUnit.MILLISECONDS);
        return publisher;
    }

    private void publish() {
        for (Map.Entry<String, String> v : values.entrySet()) {
            try {
                if (!v.getValue().equals(kv.get(ClusterEndpoints.NAMESPACE, v.getKey()).orElse(null))) {
                    kv.put(ClusterEndpoints.NAMESPACE, v.getKey(), v.getValue()).get(30, TimeUnit.SECONDS);
                    LOG.info("Cluster: published {} = {}", v.getKey(), v.getValue());
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (final ExecutionException | TimeoutException | RuntimeException e) {
                LOG.debug("Publishing {} failed (no leader yet?); next time", v.getKey(), e);
                return;
            }
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
