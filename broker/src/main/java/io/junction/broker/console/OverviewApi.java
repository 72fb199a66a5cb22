package io.junction.broker.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.broker.http.JsonReplies;
import io.junction.cluster.ClusterNode;
import io.junction.cluster.proxy.groups.GroupedProxy;
import io.junction.core.Messaging;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * {@code GET /admin/overview}: per protocol the open connections and the in/out message rates (now, and the chart's
 * history), disk use, topic and group counts, and the cluster's state when this node is clustered (what
 * {@code GET /cluster} shows). Reading the disk gauges touches the file system, so it runs on the console's executor.
 */
final class OverviewApi implements HttpHandler {

    static final String PATH = "/admin/overview";

    private final Messaging core;
    private final MeterRegistry registry;
    private final TrafficHistory traffic;
    private final ClusterNode cluster;
    private final GroupedProxy proxy;
    private final Executor work;

    /**
     * @param cluster this node's replica, null unless it is a clustered {@code all} or {@code store} node
     * @param proxy   this proxy's store groups, null unless it is a proxy
     */
    OverviewApi(final Messaging core, final MeterRegistry registry, final TrafficHistory traffic,
                final ClusterNode cluster, final GroupedProxy proxy, final Executor work) {
        this.core = core;
        this.registry = registry;
        this.traffic = traffic;
        this.cluster = cluster;
        this.proxy = proxy;
        this.work = work;
    }

    @Override
    public void handle(final HttpExchange exchange) {
        if (!HttpMethod.GET.equals(exchange.request().method())) {
            JsonReplies.problem(exchange, HttpResponseStatus.METHOD_NOT_ALLOWED, "use GET " + PATH);
            return;
        }
        traffic.start();
        try {
            work.execute(() -> {
                try {
                    JsonReplies.json(exchange, HttpResponseStatus.OK, overview());
                } catch (final RuntimeException e) {
                    JsonReplies.failure(exchange, e); // the store is closing or failed: answer, never leave it hanging
                }
            });
        } catch (final RejectedExecutionException e) {
            JsonReplies.problem(exchange, HttpResponseStatus.SERVICE_UNAVAILABLE, "busy");
        }
    }

    private ObjectNode overview() {
        final ObjectNode o = JsonReplies.JSON.createObjectNode();
        o.put("time", System.currentTimeMillis());
        final Map<String, Integer> connections = traffic.connections();
        final TrafficHistory.Totals totals = traffic.protocolTotals();
        final TrafficHistory.Rates rates = traffic.protocolRates();
        final TreeSet<String> protocols = new TreeSet<>(connections.keySet());
        protocols.addAll(totals.in().keySet());
        protocols.addAll(totals.out().keySet());
        final ArrayNode rows = o.putArray("protocols");
        for (final String p : protocols) {
            rows.addObject().put("protocol", p).put("connections", connections.getOrDefault(p, 0))
                    .put("inRate", rates.in().getOrDefault(p, 0.0)).put("outRate", rates.out().getOrDefault(p, 0.0))
                    .put("inTotal", totals.in().getOrDefault(p, 0.0).longValue())
                    .put("outTotal", totals.out().getOrDefault(p, 0.0).longValue());
        }
        final TrafficHistory.Series series = traffic.series();
        final ObjectNode history = o.putObject("history");
        history.put("periodMillis", TrafficHistory.PERIOD_MS);
        final ArrayNode times = history.putArray("times");
        series.times().forEach(times::add);
        history.set("in", points(series.in()));
        history.set("out", points(series.out()));
        o.putObject("disk").put("usedBytes", gauge("junction.store.disk.used"))
                .put("freeBytes", gauge("junction.store.disk.free"));
        o.put("topics", core.topics().list().size()).put("groups", core.groups().list().size())
                .put("retentionMillis", core.retention().toMillis());
        o.set("cluster", cluster != null ? clusterStatus() : proxy != null ? ProxyPanel.describe(proxy.groupsStatus())
                : null);
        return o;
    }

    private static ObjectNode points(final Map<String, List<Double>> series) {
        final ObjectNode n = JsonReplies.JSON.createObjectNode();
        series.forEach((protocol, values) -> {
            final ArrayNode a = n.putArray(protocol);
            values.forEach(v -> a.add(Math.round(v * 100) / 100.0));
        });
        return n;
    }

    private long gauge(final String name) {
        final Gauge g = registry.find(name).gauge();
        final double v = g == null ? Double.NaN : g.value();
        return Double.isNaN(v) ? -1 : (long) v;
    }

    private JsonNode clusterStatus() {
        return ClusterPanel.describe(cluster.status(), cluster.settings().electionTimeout().toMillis());
    }
}
