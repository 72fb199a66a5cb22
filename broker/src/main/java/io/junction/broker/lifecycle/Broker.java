package io.junction.broker.lifecycle;

import io.junction.broker.cluster.ClientEndpointsPublisher;
import io.junction.broker.config.BrokerConfig;
import io.junction.broker.config.ConfigException;
import io.junction.broker.config.ConfigKeys;
import io.junction.broker.config.StoreSettings;
import io.junction.broker.console.ConsoleRoutes;
import io.junction.broker.http.ClusterHandler;
import io.junction.broker.http.HealthHandler;
import io.junction.broker.http.HealthState;
import io.junction.broker.http.HttpListener;
import io.junction.broker.http.HttpRouter;
import io.junction.broker.http.ListenException;
import io.junction.broker.http.MetricsHandler;
import io.junction.broker.metrics.BrokerMetrics;
import io.junction.broker.metrics.ClusterGauges;
import io.junction.broker.metrics.BrokerObservability;
import io.junction.broker.metrics.OtlpPush;
import io.junction.broker.metrics.StoreStatsGauges;
import io.junction.broker.msgtrace.MessageTraceWriter;
import io.junction.broker.netty.NettyTransport;
import io.junction.broker.security.SecurityAdminHandler;
import io.junction.broker.security.SecuritySetup;
import io.junction.broker.tracing.MessageSpans;
import io.junction.cluster.ClusterMember;
import io.junction.cluster.ClusterNode;
import io.junction.core.Messaging;
import io.junction.core.engine.StoreConfig;
import io.junction.spi.Endpoint;
import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.config.InvalidValueException;
import io.junction.spi.metrics.ConnectionCounter;
import io.junction.spi.tls.ServerTls;
import io.junction.tenancy.AccessControl;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running broker. {@link #start} opens, in order: metrics, the store, the event loops, the HTTP listener, then every
 * enabled front-end; {@link #stop} closes them in reverse. If any step fails, what was opened is closed in reverse
 * before the failure is reported, so a failed start leaves no thread, socket or store lock behind.
 */
public final class Broker {

    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);

    private static final long FRONT_END_START_TIMEOUT_SECONDS = 30;
    private static final long FRONT_END_STOP_TIMEOUT_SECONDS = 10;

    private final ResourceStack resources;
    private final HealthState health;
    private final List<Endpoint> endpoints;
    private final Path dataDir;

    private Broker(final ResourceStack resources, final HealthState health, final List<Endpoint> endpoints,
                   final Path dataDir) {
        this.resources = resources;
        this.health = health;
        this.endpoints = endpoints;
        this.dataDir = dataDir;
    }

    /**
     * Starts everything; returns once every listener is bound and {@code /health} answers 200.
     *
     * @throws ConfigException      when store settings, or a front-end's own settings, do not fit together
     * @throws BrokerStartException when a component cannot start (store, port); nothing is left running
     */
    public static Broker start(final BrokerConfig config, final List<ProtocolFrontEnd> frontEnds)
            throws ConfigException, BrokerStartException {
        final ResourceStack resources = new ResourceStack();
        try {
            final BrokerMetrics metrics = resources.push("metrics", BrokerMetrics.create(otlpPush(config)));
            final StoreConfig storeConfig = StoreSettings.toStoreConfig(config, metrics.storeMetrics());
            final BackEnd backEnd = BackEnd.open(config, storeConfig, resources);
            final Messaging store = backEnd.messaging();
            final ClusterNode cluster = backEnd.cluster();
            if (backEnd.stats() != null) {
                StoreStatsGauges.register(metrics.registry(), backEnd.stats());
                if (backEnd.stats().get().recoveredFromCrash()) {
                    LOG.warn("The store in {} was not shut down cleanly last time; it recovered", config.dataDir());
                }
            }
            if (backEnd.single()) {
                awaitTraceTopic(store);
            } else {
                // Only the leader changes metadata, and a node or proxy may start while another leads: the trace
                // topic is created on its first use (auto-creation) instead.
                LOG.info("Cluster: {} is created on its first use", MessageTraceWriter.DEFAULT_TOPIC);
            }
            store.topics().list().forEach(t -> metrics.storeMetrics().registerTopic(t.name()));

            final MessageSpans spans = messageSpans(config);
            if (spans != null) {
                resources.push("spans", spans);
            }
            final BrokerObservability observability = resources.push("consumer metrics",
                    new BrokerObservability(metrics, store, observabilitySettings(config), spans));

            final NettyTransport transport = resources.push("event loops",
                    NettyTransport.create(config.intValue(ConfigKeys.IO_THREADS)));
            final HealthState health = new HealthState();
            final HttpRouter router = new HttpRouter();
            router.register(HealthHandler.PATH, new HealthHandler(health));
            router.register(MetricsHandler.PATH, new MetricsHandler(metrics));
            if (cluster != null) {
                router.register(ClusterHandler.PATH, new ClusterHandler(cluster::status));
                ClusterGauges.register(metrics.registry(), cluster);
                health.writable(cluster::acceptsWrites);
            }
            if (backEnd.proxy() != null) {
                router.register(ClusterHandler.PATH, new ClusterHandler(backEnd.proxy()::status));
                health.reachesLeader(backEnd.proxy()::reachesLeader);
            }
            final String bindAddress = config.string(ConfigKeys.BIND_ADDRESS);
            final String advertisedHost = config.string(ConfigKeys.BROKER_HOST);
            final HttpListener http = resources.push("http listener", HttpListener.bind(transport, bindAddress,
                    config.port(ConfigKeys.HTTP_PORT), advertisedHost, router,
                    new HttpListener.Limits(config.intSize(ConfigKeys.HTTP_MAX_REQUEST_SIZE),
                            config.intValue(ConfigKeys.HTTP_READ_TIMEOUT_MS)),
                    new ConnectionCounter(metrics.registry(), "http")));
            final List<Endpoint> httpEndpoints = new ArrayList<>(List.of(http.endpoint()));
            final FrontEndConfig httpConfig = config.frontEnd(ConfigKeys.HTTP_PREFIX);
            if (ServerTls.enabled(httpConfig)) {
                final SslContext tls = httpTls(httpConfig, config.dataDir(), advertisedHost);
                final HttpListener https = resources.push("https listener", HttpListener.bindTls(transport,
                        bindAddress, httpConfig.intValue("tls-port"), advertisedHost, router,
                        new HttpListener.Limits(config.intSize(ConfigKeys.HTTP_MAX_REQUEST_SIZE),
                                config.intValue(ConfigKeys.HTTP_READ_TIMEOUT_MS)),
                        new ConnectionCounter(metrics.registry(), "https"), tls));
                httpEndpoints.add(https.endpoint());
            }
            health.listening(List.copyOf(httpEndpoints));

            final SecuritySetup security = resources.push("security", SecuritySetup.create(config,
                    metrics.registry()));
            final AccessControl accessControl = security.accessControl();
            final SecurityAdminHandler admin = new SecurityAdminHandler(accessControl, security.executor(),
                    tokenLifetime(config));
            router.register(SecurityAdminHandler.PATH, admin);
            router.register(SecurityAdminHandler.QUOTAS_PATH, admin);
            final ClientRegistry clients = new ClientRegistry();
            if (backEnd.role().servesClients()) {
                resources.push("console", ConsoleRoutes.register(router, store, metrics.registry(), accessControl,
                        cluster, clients, backEnd.proxy()));
            } else {
                LOG.info("Store node: no client listeners and no console (cluster.role=store)");
            }
            final List<Endpoint> endpoints = new ArrayList<>();
            final Map<String, CompletableFuture<List<Endpoint>>> starting = new LinkedHashMap<>();
            for (final ProtocolFrontEnd frontEnd : backEnd.role().servesClients() ? frontEnds
                    : List.<ProtocolFrontEnd>of()) {
                final String name = frontEnd.name();
                if (!config.frontEndEnabled(name)) {
                    LOG.info("Front-end {} is disabled ({}.enabled=false)", name, name);
                    continue;
                }
                final FrontEndContext context = new FrontEndContext(observability.observe(store, name), accessControl,
                        config.frontEnd(name), transport, metrics.registry(), router,
                        new ConnectionCounter(metrics.registry(), name), clients, bindAddress, advertisedHost,
                        config.dataDir());
                resources.onClose(name, () -> stopFrontEnd(frontEnd));
                starting.put(name, startFrontEnd(frontEnd, context));
            }
            for (final Map.Entry<String, CompletableFuture<List<Endpoint>>> e : starting.entrySet()) {
                endpoints.addAll(awaitStarted(e.getKey(), e.getValue()));
            }
            endpoints.addAll(httpEndpoints);
            if (cluster != null && backEnd.role().servesClients()) {
                resources.push("cluster endpoints", ClientEndpointsPublisher.start(store,
                        backEnd.settings().nodeId(), backEnd.settings().members().stream().map(ClusterMember::id)
                                .toList(), endpoints));
            }
            health.up(endpoints);
            return new Broker(resources, health, List.copyOf(endpoints), config.dataDir());
        } catch (final ConfigException | BrokerStartException e) {
            resources.closeAll();
            throw e;
        } catch (final ListenException e) {
            resources.closeAll();
            throw new BrokerStartException(e.getMessage(), e);
        } catch (final RuntimeException e) {
            resources.closeAll();
            throw new BrokerStartException(describe(e), e);
        }
    }

    private static void awaitTraceTopic(final Messaging store) throws BrokerStartException {
        try {
            MessageTraceWriter.createTraceTopic(store).get(FRONT_END_START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (final ExecutionException | TimeoutException e) {
            throw new BrokerStartException("cannot create " + MessageTraceWriter.DEFAULT_TOPIC + ": " + describe(e), e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerStartException("start interrupted", e);
        }
    }

    private static OtlpPush otlpPush(final BrokerConfig config) throws ConfigException {
        final String endpoint = config.string(ConfigKeys.OTEL_ENDPOINT).trim();
        if (endpoint.isEmpty()) {
            return null;
        }
        if (!endpoint.startsWith("http://") && !endpoint.startsWith("https://")) {
            throw new ConfigException(ConfigKeys.OTEL_ENDPOINT.name() + ": an http:// or https:// URL, not '"
                    + endpoint + "'");
        }
        return new OtlpPush(endpoint, Duration.ofMillis(positive(config, ConfigKeys.OTEL_METRICS_INTERVAL_MS)),
                config.string(ConfigKeys.OTEL_SERVICE_NAME));
    }

    /** Spans exported to the OTLP endpoint, or null when there is none or traces are off (then nothing is recorded). */
    private static MessageSpans messageSpans(final BrokerConfig config) throws ConfigException {
        final OtlpPush push = otlpPush(config);
        if (push == null || !config.bool(ConfigKeys.OTEL_TRACES_ENABLED)) {
            return null;
        }
        return MessageSpans.export(push.tracesUrl(), push.serviceName(),
                Duration.ofMillis(positive(config, ConfigKeys.OTEL_TRACES_EXPORT_DELAY_MS)));
    }

    private static BrokerObservability.Settings observabilitySettings(final BrokerConfig config)
            throws ConfigException {
        final Set<String> traceTopics = new LinkedHashSet<>();
        for (final String topic : config.string(ConfigKeys.TRACE_TOPICS).split(",")) {
            if (!topic.isBlank()) {
                traceTopics.add(topic.trim());
            }
        }
        return new BrokerObservability.Settings(config.bool(ConfigKeys.METRICS_ENABLED),
                positive(config, ConfigKeys.METRICS_MAX_TOPICS),
                positive(config, ConfigKeys.METRICS_MAX_GROUPS), positive(config, ConfigKeys.METRICS_MAX_LAG_SERIES),
                positive(config, ConfigKeys.METRICS_LAG_INTERVAL_MS), traceTopics);
    }

    private static Duration tokenLifetime(final BrokerConfig config) throws ConfigException {
        final int hours = config.intValue(ConfigKeys.SECURITY_TOKEN_TTL_HOURS);
        if (hours < 0) {
            throw new ConfigException(ConfigKeys.SECURITY_TOKEN_TTL_HOURS.name() + ": hours, 0 for tokens that last "
                    + "until revoked, not " + hours);
        }
        return Duration.ofHours(hours);
    }

    private static int positive(final BrokerConfig config, final ConfigKey key) throws ConfigException {
        final int value = config.intValue(key);
        if (value <= 0) {
            throw new ConfigException(key.name() + ": must be positive, not " + value);
        }
        return value;
    }

    private static SslContext httpTls(final FrontEndConfig httpConfig, final Path dataDir,
                                      final String advertisedHost) throws BrokerStartException {
        try {
            return ServerTls.serverContext(httpConfig, dataDir, advertisedHost);
        } catch (final IOException | IllegalArgumentException e) {
            throw new BrokerStartException("HTTP TLS: " + e.getMessage(), e);
        }
    }

    /** The endpoints clients can use, front-ends first, then the HTTP listeners. */
    public List<Endpoint> endpoints() {
        return endpoints;
    }

    public Path dataDir() {
        return dataDir;
    }

    public HealthState health() {
        return health;
    }

    /**
     * Stops gracefully: health turns 503, front-ends stop, the HTTP listener and event loops close, then the store
     * flushes and writes its clean-shutdown marker. Safe to call twice.
     *
     * @return true when every component closed cleanly
     */
    public boolean stop() {
        health.stopping();
        return resources.closeAll();
    }

    /**
     * Starts a front-end on a thread of its own, so front-ends start side by side: start-up is the slowest front-end's
     * time (gRPC's TLS set-up and class loading dominate), not the sum of them all.
     */
    private static CompletableFuture<List<Endpoint>> startFrontEnd(final ProtocolFrontEnd frontEnd,
                                                                   final FrontEndContext context) {
        final CompletableFuture<CompletableFuture<List<Endpoint>>> started = new CompletableFuture<>();
        final Thread starter = new Thread(() -> {
            try {
                started.complete(frontEnd.start(context));
            } catch (final RuntimeException | Error e) {
                started.completeExceptionally(e);
            }
        }, "junction-start-" + frontEnd.name());
        starter.setDaemon(true);
        starter.start();
        return started.thenCompose(f -> f);
    }

    /**
     * The front-end's endpoints once it started. A front-end whose own keys hold values that do not fit together
     * (a {@link InvalidValueException} from its start) is a configuration error, like a malformed value.
     */
    private static List<Endpoint> awaitStarted(final String name, final CompletableFuture<List<Endpoint>> started)
            throws BrokerStartException, ConfigException {
        try {
            return started.get(FRONT_END_START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (final ExecutionException e) {
            if (e.getCause() instanceof InvalidValueException invalid) {
                throw new ConfigException(invalid.getMessage(), invalid);
            }
            throw new BrokerStartException(name + ": " + describe(e.getCause()), e.getCause());
        } catch (final TimeoutException e) {
            throw new BrokerStartException(name + ": did not start within " + FRONT_END_START_TIMEOUT_SECONDS
                    + " s", e);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerStartException(name + ": start interrupted", e);
        }
    }

    private static void stopFrontEnd(final ProtocolFrontEnd frontEnd) throws Exception {
        try {
            frontEnd.stop().get(FRONT_END_STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (final TimeoutException e) {
            throw new TimeoutException(frontEnd.name() + " did not stop within " + FRONT_END_STOP_TIMEOUT_SECONDS
                    + " s");
        }
    }

    /** One line for a failure: its message, or its type when it has none. */
    static String describe(final Throwable e) {
        final String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }
}
