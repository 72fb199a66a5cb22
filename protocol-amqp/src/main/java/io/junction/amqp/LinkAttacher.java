package io.junction.amqp;

import io.junction.core.filter.MessageFilter;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.tenancy.Action;
import io.junction.tenancy.ResourceKind;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.qpid.proton.amqp.DescribedType;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.Source;
import org.apache.qpid.proton.amqp.messaging.Target;
import org.apache.qpid.proton.amqp.messaging.TerminusDurability;
import org.apache.qpid.proton.amqp.messaging.TerminusExpiryPolicy;
import org.apache.qpid.proton.amqp.transaction.Coordinator;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.ReceiverSettleMode;
import org.apache.qpid.proton.amqp.transport.SenderSettleMode;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.engine.Sender;

/**
 * Answers a client's ATTACH: resolves the terminus onto the core (topic, consumer group, filter), creates what is
 * missing (asynchronously; the answering ATTACH goes out once it exists) and installs the link's handler. A link that
 * cannot be served is answered with a null terminus and closed at once with the reason (spec part 2.6.3).
 *
 * <p>Consumer links ({@link ConsumerPlan.Kind}): capability {@code topic} (or {@code temporary-topic}) reads as a
 * subscription: shared ({@code shared}, scoped to the container id unless {@code global}) or not, durable when the
 * source's durability is not {@code none}; the subscription name is the link name up to its first {@code |} (as Qpid
 * JMS names links). Anything else reads as a queue: one consumer group per queue, tracked in place by the core, so
 * consumers with different selectors share the queue's messages (each message goes to one consumer; a selector takes
 * only what it selects and leaves the rest); a source with distribution mode {@code copy} on a queue is a browser. A
 * source without address is a durable-subscription lookup (Qpid JMS unsubscribing): the stored subscription's source
 * is returned and closing the link deletes it.
 */
final class LinkAttacher {
    static final Symbol QUEUE = Symbol.valueOf("queue");
    static final Symbol TOPIC = Symbol.valueOf("topic");
    static final Symbol TEMP_QUEUE = Symbol.valueOf("temporary-queue");
    static final Symbol TEMP_TOPIC = Symbol.valueOf("temporary-topic");
    static final Symbol SHARED = Symbol.valueOf("shared");
    static final Symbol GLOBAL = Symbol.valueOf("global");
    /** Source distribution mode of a queue browser (Qpid JMS). */
    static final Symbol COPY = Symbol.valueOf("copy");
    static final Symbol SELECTOR_FILTER = Symbol.valueOf("apache.org:selector-filter:string");
    static final UnsignedLong SELECTOR_FILTER_CODE = UnsignedLong.valueOf(0x0000468C00000004L);
    static final Symbol JMS_SELECTOR_KEY = Symbol.valueOf("jms-selector");

    private final Endpoints endpoints;
    private final AmqpBroker broker;

    LinkAttacher(final Endpoints endpoints) {
        this.endpoints = endpoints;
        this.broker = endpoints.broker();
    }

    void attach(final Link link) {
        if (link instanceof Receiver receiver) {
            attachProducer(receiver);
        } else {
            attachConsumer((Sender) link);
        }
    }

    // ------------------------------------------------------------------------------------------------ producers

    private void attachProducer(final Receiver r) {
        r.setSource(r.getRemoteSource());
        r.setSenderSettleMode(r.getRemoteSenderSettleMode());
        r.setReceiverSettleMode(ReceiverSettleMode.FIRST);
        final org.apache.qpid.proton.amqp.transport.Target remote = r.getRemoteTarget();
        if (remote instanceof Coordinator coordinator) {
            r.setTarget(coordinator);
            r.open();
            final CoordinatorLink handler = new CoordinatorLink(endpoints, r);
            endpoints.register(r, handler);
            handler.start();
            return;
        }
        if (!(remote instanceof Target target)) {
            refuse(r, AmqpErrors.INVALID_FIELD, "no target");
            return;
        }
        r.setMaxMessageSize(UnsignedLong.valueOf(broker.settings().maxMessageSize()));
        if (target.getDynamic()) {
            final String temporary = AmqpBroker.TEMP_PREFIX + broker.nextId();
            final String core = endpoints.inNamespace(temporary);
            whenReady(r, broker.ensureTopic(core), t -> {
                endpoints.addTemporaryTopic(core);
                final Target local = (Target) target.copy();
                local.setAddress(temporary);
                r.setTarget(local);
                openProducer(r, core, closed -> {
                    if (closed) {
                        endpoints.removeTemporaryTopic(core); // Qpid JMS deletes a temporary destination so
                    }
                });
            });
            return;
        }
        r.setTarget(target);
        final String address = target.getAddress();
        if (address == null) {
            openProducer(r, null, null); // anonymous relay: each message's "to" decides
            return;
        }
        final String core = endpoints.core(address);
        if (core == null) {
            refuse(r, AmqpErrors.INVALID_FIELD, "address too long");
            return;
        }
        if (!allowed(core, Action.PUB)) {
            refuse(r, AmqpErrors.UNAUTHORIZED, "not allowed to send to " + address);
            return;
        }
        whenReady(r, broker.ensureTopic(core), t -> openProducer(r, core, null));
    }

    private void openProducer(final Receiver r, final String core, final Consumer<Boolean> onEnd) {
        r.open();
        final ProducerLink handler = new ProducerLink(endpoints, r, core, onEnd);
        endpoints.register(r, handler);
        handler.start();
    }

    // ------------------------------------------------------------------------------------------------ consumers

    private void attachConsumer(final Sender s) {
        s.setTarget(s.getRemoteTarget());
        s.setSenderSettleMode(s.getRemoteSenderSettleMode());
        s.setReceiverSettleMode(ReceiverSettleMode.FIRST);
        final boolean presettled = s.getRemoteSenderSettleMode() == SenderSettleMode.SETTLED;
        if (!(s.getRemoteSource() instanceof Source source)) {
            lookupSubscription(s);
            return;
        }
        if (source.getDynamic()) {
            final String temporary = AmqpBroker.TEMP_PREFIX + broker.nextId();
            final String core = endpoints.inNamespace(temporary);
            whenReady(s, broker.ensureTopic(core).thenCompose(t -> broker.ensureQueueGroup(core)), g -> {
                endpoints.addTemporaryTopic(core);
                final Source local = (Source) source.copy();
                local.setAddress(temporary);
                s.setSource(local);
                openConsumer(s, new ConsumerPlan(temporary, core, core, MessageFilter.ALL, ConsumerPlan.Kind.QUEUE, 0),
                        presettled, closed -> endpoints.removeTemporaryTopic(core));
            });
            return;
        }
        final String address = source.getAddress();
        if (address == null) {
            lookupSubscription(s);
            return;
        }
        final String core = endpoints.core(address);
        if (core == null) {
            refuse(s, AmqpErrors.INVALID_FIELD, "address too long");
            return;
        }
        if (!allowed(core, Action.SUB)) {
            refuse(s, AmqpErrors.UNAUTHORIZED, "not allowed to receive from " + address);
            return;
        }
        final Map<Symbol, Object> echoed = new LinkedHashMap<>();
        final String selector = selector(source, echoed);
        final MessageFilter filter;
        try {
            filter = JmsSelectors.compile(selector);
        } catch (IllegalArgumentException e) {
            refuse(s, AmqpErrors.INVALID_FIELD, "invalid selector: " + e.getMessage());
            return;
        }
        final Source local = (Source) source.copy();
        local.setFilter(echoed.isEmpty() ? null : echoed);
        s.setSource(local);
        final Symbol[] caps = source.getCapabilities();
        if (!has(caps, TOPIC) && !has(caps, TEMP_TOPIC)) {
            final ConsumerPlan plan = new ConsumerPlan(address, core, core, filter, ConsumerPlan.Kind.QUEUE, 0);
            final CompletableFuture<GroupConfig> ready = broker.ensureTopic(core)
                    .thenCompose(t -> broker.ensureQueueGroup(core));
            if (COPY.equals(source.getDistributionMode())) {
                whenReady(s, ready, g -> openBrowser(s, plan));
            } else {
                whenReady(s, ready, g -> openConsumer(s, plan, presettled, null));
            }
            return;
        }
        final boolean shared = has(caps, SHARED);
        final boolean durable = source.getDurable() != null && source.getDurable() != TerminusDurability.NONE;
        final String scope = has(caps, GLOBAL) ? "global" : endpoints.containerId();
        final String name = subscriptionName(s.getName());
        final ConsumerPlan.Kind kind;
        final String group;
        if (shared) {
            kind = durable ? ConsumerPlan.Kind.SHARED_DURABLE : ConsumerPlan.Kind.SHARED_VOLATILE;
            group = endpoints.inNamespace(groupName(durable ? AmqpBroker.SHARED_PREFIX
                    : AmqpBroker.TRANSIENT_PREFIX + "shared-", scope, name));
        } else if (durable) {
            kind = ConsumerPlan.Kind.DURABLE;
            group = endpoints.inNamespace(groupName(AmqpBroker.DURABLE_PREFIX, endpoints.containerId(), name));
        } else {
            kind = ConsumerPlan.Kind.TRANSIENT;
            group = endpoints.inNamespace(AmqpBroker.TRANSIENT_PREFIX + broker.nextId());
        }
        final Map<String, String> attributes = Map.of(AmqpBroker.ATTR_ADDRESS, address, AmqpBroker.ATTR_TOPIC, core,
                AmqpBroker.ATTR_SELECTOR, selector == null ? "" : selector);
        if (kind == ConsumerPlan.Kind.DURABLE && !broker.takeSubscription(group)) {
            refuse(s, AmqpErrors.RESOURCE_LOCKED, "durable subscription '" + name + "' of client '"
                    + endpoints.containerId() + "' is in use by another consumer");
            return;
        }
        if (kind == ConsumerPlan.Kind.SHARED_VOLATILE) {
            broker.joinSharedVolatile(group);
        }
        final long since = System.currentTimeMillis();
        whenReady(s, broker.ensureTopic(core).thenCompose(t -> subscription(group, t, attributes)), fresh -> {
            final ConsumerPlan plan = new ConsumerPlan(address, core, group, filter, kind, fresh ? since : 0);
            openConsumer(s, plan, presettled, closed -> subscriptionEnded(plan, closed));
        }, () -> {
            if (kind == ConsumerPlan.Kind.DURABLE) {
                broker.leaveSubscription(group); // never opened: the subscription is free again
            }
        });
    }

    /**
     * A subscription's group: a new one starts at the topic's end; one made for another address or selector too.
     * Completes with true when the group is new.
     */
    private CompletableFuture<Boolean> subscription(final String group, final TopicConfig topic,
                                                    final Map<String, String> attributes) {
        final Optional<GroupConfig> existing = broker.messaging().groups().get(group);
        if (existing.isPresent() && existing.get().attributes().equals(attributes)) {
            return CompletableFuture.completedFuture(false);
        }
        final CompletableFuture<Boolean> cleared = existing.isPresent()
                ? broker.deleteGroup(group) : CompletableFuture.completedFuture(false);
        return cleared.thenCompose(x -> broker.ensureGroup(group, attributes))
                .thenCompose(g -> broker.startAtEnd(group, topic).thenApply(x -> true));
    }

    private void subscriptionEnded(final ConsumerPlan plan, final boolean closed) {
        switch (plan.kind()) {
            case TRANSIENT -> broker.deleteGroup(plan.group());
            case SHARED_VOLATILE -> {
                if (broker.leaveSharedVolatile(plan.group())) {
                    broker.deleteGroup(plan.group());
                }
            }
            case DURABLE -> broker.leaveSubscription(plan.group());
            default -> {
                // durable subscriptions outlive their links; unsubscribing goes through lookupSubscription
            }
        }
    }

    /** A queue browser: enumerates the queue's messages without taking them (see {@link BrowserLink}). */
    private void openBrowser(final Sender s, final ConsumerPlan plan) {
        s.open();
        final BrowserLink handler = new BrowserLink(endpoints, s, plan);
        endpoints.register(s, handler);
        handler.onFlow();
    }

    private void openConsumer(final Sender s, final ConsumerPlan plan, final boolean presettled,
                              final Consumer<Boolean> onEnd) {
        if (!endpoints.isTemporaryTopic(plan.topic()) && !allowed(plan.topic(), Action.SUB)) {
            // SUB was taken away while the subscription was being made ready (a change after this is seen by
            // LinkAuthorization, which ends open consumer links)
            refuse(s, AmqpErrors.UNAUTHORIZED, "not allowed to receive from " + plan.address());
            if (onEnd != null) {
                onEnd.accept(true);
            }
            return;
        }
        s.open();
        final ConsumerLink handler = new ConsumerLink(endpoints, s, plan, presettled, onEnd);
        endpoints.register(s, handler);
        endpoints.broker().consumerStarted(handler);
        handler.onFlow();
    }

    /**
     * A consumer link without source address: Qpid JMS looks a durable subscription up this way to unsubscribe. Found:
     * the link opens with the subscription's source, and closing it deletes the subscription. A subscription with a
     * consumer attached cannot be unsubscribed (amqp:resource-locked); an unknown one is amqp:not-found (Qpid JMS
     * reports both as exceptions of {@code unsubscribe}).
     *
     * <p>Qpid JMS names the kind of subscription (desired capabilities {@code shared}, {@code global}) only while it has
     * consumers of it; for one it no longer has, the client's unshared subscription of that name is looked for first,
     * then its shared one.
     */
    private void lookupSubscription(final Sender s) {
        final Symbol[] desired = s.getRemoteDesiredCapabilities();
        final String name = subscriptionName(s.getName());
        final boolean global = has(desired, GLOBAL) || s.getName().endsWith("|global");
        final String shared = endpoints.inNamespace(groupName(AmqpBroker.SHARED_PREFIX,
                global ? "global" : endpoints.containerId(), name));
        final List<String> candidates = has(desired, SHARED) || global ? List.of(shared) : List.of(
                endpoints.inNamespace(groupName(AmqpBroker.DURABLE_PREFIX, endpoints.containerId(), name)), shared);
        for (String group : candidates) {
            final Optional<GroupConfig> found = broker.messaging().groups().get(group);
            if (found.isEmpty() || !found.get().attributes().containsKey(AmqpBroker.ATTR_ADDRESS)) {
                continue;
            }
            if (broker.subscriptionInUse(group)) {
                refuse(s, AmqpErrors.RESOURCE_LOCKED, "subscription '" + name + "' is in use: close its consumers "
                        + "before unsubscribing");
                return;
            }
            final Map<String, String> attrs = found.get().attributes();
            final Source source = new Source();
            source.setAddress(attrs.get(AmqpBroker.ATTR_ADDRESS));
            source.setDurable(TerminusDurability.UNSETTLED_STATE);
            source.setExpiryPolicy(TerminusExpiryPolicy.NEVER);
            source.setCapabilities(group.equals(shared) ? new Symbol[] {TOPIC, SHARED} : new Symbol[] {TOPIC});
            final String selector = attrs.get(AmqpBroker.ATTR_SELECTOR);
            if (selector != null && !selector.isEmpty()) {
                source.setFilter(Map.of(JMS_SELECTOR_KEY, new SelectorFilter(selector)));
            }
            s.setSource(source);
            s.open();
            endpoints.register(s, new SubscriptionHandle(group));
            return;
        }
        refuse(s, AmqpErrors.NOT_FOUND, "no durable subscription named '" + name + "'");
    }

    /**
     * The link of a subscription lookup: closing it unsubscribes, and the close is answered once the subscription is
     * gone (a subscription of that name made right after starts afresh).
     */
    private final class SubscriptionHandle implements LinkHandler {
        private final String group;
        private CompletableFuture<?> deleted = CompletableFuture.completedFuture(null);

        SubscriptionHandle(final String group) {
            this.group = group;
        }

        @Override
        public void onDelivery(final Delivery delivery) {
            // nothing is delivered on a lookup link
        }

        @Override
        public void onEnd(final boolean closed) {
            if (closed) {
                deleted = broker.deleteGroup(group);
            }
        }

        @Override
        public CompletableFuture<?> settled() {
            return deleted;
        }
    }

    /** The JMS selector filter as a described type, for sources the broker builds. */
    private record SelectorFilter(String selector) implements DescribedType {
        @Override
        public Object getDescriptor() {
            return SELECTOR_FILTER;
        }

        @Override
        public Object getDescribed() {
            return selector;
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** The JMS selector of a source's filter set, if any; the entries the broker applies go into {@code echoed}. */
    private static String selector(final Source source, final Map<Symbol, Object> echoed) {
        final Map<?, ?> filters = source.getFilter();
        if (filters == null) {
            return null;
        }
        for (Map.Entry<?, ?> e : filters.entrySet()) {
            if (e.getValue() instanceof DescribedType d && (SELECTOR_FILTER.equals(d.getDescriptor())
                    || SELECTOR_FILTER_CODE.equals(d.getDescriptor())) && d.getDescribed() instanceof String sel) {
                if (e.getKey() instanceof Symbol key) {
                    echoed.put(key, e.getValue());
                }
                return sel.isBlank() ? null : sel;
            }
        }
        return null;
    }

    private <T> void whenReady(final Link link, final CompletableFuture<T> ready, final Consumer<T> then) {
        whenReady(link, ready, then, () -> { });
    }

    /** Opens the link with {@code then} once {@code ready} completes; {@code abandoned} runs when it never opens. */
    private <T> void whenReady(final Link link, final CompletableFuture<T> ready, final Consumer<T> then,
                               final Runnable abandoned) {
        ready.whenCompleteAsync((v, e) -> {
            if (endpoints.lost()) {
                abandoned.run();
                return;
            }
            if (e != null) {
                abandoned.run();
                refuse(link, ProducerLink.conditionOf(e.getCause() != null ? e.getCause() : e),
                        "cannot attach: " + e.getMessage());
            } else {
                then.accept(v);
            }
            endpoints.connection().requestFlush();
        }, endpoints.connection().executor());
    }

    private void refuse(final Link link, final Symbol condition, final String description) {
        if (link instanceof Sender) {
            link.setSource(null);
        } else {
            link.setTarget(null);
        }
        link.open();
        link.setCondition(new ErrorCondition(condition, description));
        link.close();
        endpoints.connection().requestFlush();
    }

    private boolean allowed(final String core, final Action action) {
        return broker.accessControl().allows(endpoints.connection().principal(), ResourceKind.TOPIC, core, action);
    }

    static boolean has(final Symbol[] capabilities, final Symbol wanted) {
        if (capabilities != null) {
            for (Symbol c : capabilities) {
                if (wanted.equals(c)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Qpid JMS names a subscription's links {@code name}, {@code name|2}, {@code name|global}, ... */
    static String subscriptionName(final String linkName) {
        final int bar = linkName.indexOf('|');
        return bar < 0 ? linkName : linkName.substring(0, bar);
    }

    /** {@code prefix + scope|name}, escaped; hashed when too long for a core name. */
    static String groupName(final String prefix, final String scope, final String name) {
        final String full = prefix + AddressNames.escape(scope) + "|" + AddressNames.escape(name);
        if (full.length() <= AddressNames.MAX_CORE_LENGTH - 40 - 65) {
            return full; // room for the core's retry topic prefix and a namespace
        }
        return prefix + shortHash(scope + "|" + name);
    }

    static String shortHash(final String text) {
        try {
            final byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
