package io.junction.cloudevents;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.junction.core.meta.TopicConfig;
import io.junction.spi.BrokerContext;
import io.junction.spi.Endpoint;
import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.config.ValueKind;
import io.junction.spi.http.HttpRoute;
import io.junction.spi.kit.HeldMessages;
import io.junction.spi.kit.TopicProvisioner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * CloudEvents over HTTP on the broker's shared listener: ingress at {@code /topics/}, subscriptions (push and pull) at
 * {@code /subscriptions}.
 */
public final class CloudEventsFrontEnd implements ProtocolFrontEnd {
    static final String NAME = "http-cloudevents";

    static final ConfigKey DEDUP_WINDOW_MS = ConfigKey.of(NAME + ".dedup-window-ms", ValueKind.INT, "60000",
            "A repeated (source, id) to the same topic within this many milliseconds is stored once; 0 disables.");
    static final ConfigKey DEDUP_MAX_ENTRIES = ConfigKey.of(NAME + ".dedup-max-entries", ValueKind.INT, "100000",
            "Most (source, id) pairs remembered for deduplication (the oldest are forgotten first).");
    static final ConfigKey MAX_EVENT_SIZE = ConfigKey.of(NAME + ".max-event-size", ValueKind.INT_SIZE, "4m",
            "Largest event data accepted; larger events get 413.");
    static final ConfigKey MAX_BATCH_EVENTS = ConfigKey.of(NAME + ".max-batch-events", ValueKind.INT, "1000",
            "Most events one batch (application/cloudevents-batch+json) may hold; larger batches get 413.");
    static final ConfigKey DEFAULT_TYPE = ConfigKey.of(NAME + ".default-type", ValueKind.STRING,
            "io.junction.message", "CloudEvents type given to messages that did not arrive as CloudEvents.");
    static final ConfigKey PUSH_CONCURRENCY = ConfigKey.of(NAME + ".push-concurrency", ValueKind.INT, "16",
            "Most deliveries in flight at once to one push subscription's sink.");
    static final ConfigKey TOPIC_QUEUES = ConfigKey.of(NAME + ".topic-queues", ValueKind.INT, "8",
            "Queues of a core topic created by a subscription to a topic that does not exist yet (1 to 1024).");

    /** How long a stop waits for push deliveries being given back to be stored. */
    private static final long STOP_WAIT_MILLIS = 5_000;

    private final List<HttpRoute> routes = new ArrayList<>();
    private SubscriptionsHandler subscriptions;
    private HeldMessages<PushDispatcher> held;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ConfigKey> configKeys() {
        return List.of(DEDUP_WINDOW_MS, DEDUP_MAX_ENTRIES, MAX_EVENT_SIZE, MAX_BATCH_EVENTS, DEFAULT_TYPE,
                PUSH_CONCURRENCY, TOPIC_QUEUES);
    }

    @Override
    public CompletableFuture<List<Endpoint>> start(final BrokerContext context) {
        try {
            final FrontEndConfig config = context.config();
            final ObjectMapper json = new ObjectMapper();
            final String baseUrl = context.httpRoutes().baseUrl();
            final CloudEventMapping mapping = new CloudEventMapping(baseUrl, config.string("default-type"));
            final EventDecoder decoder = new EventDecoder(json,
                    (int) Math.min(Integer.MAX_VALUE, config.size("max-event-size")),
                    config.intValue("max-batch-events"));
            final Authorization authorization = new Authorization(context.accessControl());
            final IngressHandler ingress = new IngressHandler(context.messaging(), mapping, decoder, json,
                    Duration.ofMillis(config.intValue("dedup-window-ms")), config.intValue("dedup-max-entries"),
                    authorization);
            final SinkClient client = new SinkClient(context.eventLoops());
            final int concurrency = Math.max(1, config.intValue("push-concurrency"));
            final TopicProvisioner topics = new TopicProvisioner(context.messaging(), TopicProvisioner.Policy.normal(
                    Math.max(1, Math.min(TopicConfig.MAX_QUEUES, config.intValue("topic-queues")))));
            held = new HeldMessages<>(context.messaging());
            subscriptions = new SubscriptionsHandler(context.messaging(), topics, held, json, mapping,
                    s -> new PushDispatcher(s, context.messaging(), held, client, mapping,
                            context.eventLoops().worker().next(), concurrency, authorization), authorization,
                    context.clients().popConsumers());
            subscriptions.restore();
            routes.add(context.httpRoutes().register(IngressHandler.PREFIX, ingress));
            routes.add(context.httpRoutes().register(SubscriptionsHandler.PREFIX, subscriptions));
            return CompletableFuture.completedFuture(List.of(
                    new Endpoint(NAME, baseUrl + IngressHandler.PREFIX + "{topic}")));
        } catch (final RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Void> stop() {
        routes.forEach(HttpRoute::close);
        routes.clear();
        if (subscriptions != null) {
            subscriptions.stopAll();
        }
        // what was being given back is stored before the core stops: a restart finds it at once
        return held == null ? CompletableFuture.completedFuture(null)
                : held.pending().orTimeout(STOP_WAIT_MILLIS, TimeUnit.MILLISECONDS).exceptionally(e -> null);
    }
}
