package io.junction.amqp;

import io.junction.core.Messaging;
import io.junction.core.PoppedMessage;
import io.junction.core.Receipt;
import io.junction.core.SystemNames;
import io.junction.core.filter.MessageFilter;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.kit.TopicProvisioner;
import io.junction.spi.kit.HeldMessages;
import io.junction.tenancy.AccessControl;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every AMQP connection shares: the core, tenancy, settings, and the bookkeeping of names that outlive one link
 * (shared non-durable subscriptions, in use by several links; groups and topics the front-end creates).
 *
 * <p>Core names the front-end creates: consumer groups {@value #TRANSIENT_PREFIX}{@code *} (non-durable topic
 * subscriptions, deleted when their last link goes and at start), {@value #DURABLE_PREFIX}{@code *} and
 * {@value #SHARED_PREFIX}{@code *} (durable subscriptions, kept until unsubscribed), and topics
 * {@value #TEMP_PREFIX}{@code *} (temporary queues and topics, deleted with their connection and at start).
 */
final class AmqpBroker {
    static final String TRANSIENT_PREFIX = "amqp-tmp-";
    static final String DURABLE_PREFIX = "amqp-sub-";
    static final String SHARED_PREFIX = "amqp-shared-";
    static final String TEMP_PREFIX = "amqp-temp-";
    /** Group attributes of a subscription: the address and selector it was made for. */
    static final String ATTR_ADDRESS = "amqp.address";
    static final String ATTR_SELECTOR = "amqp.selector";
    static final String ATTR_TOPIC = "amqp.topic";

    /** Groups earlier versions made for a selector on a queue. */
    private static final Pattern OLD_SELECTOR_GROUP = Pattern.compile(
            "\\|sel-[0-9a-f]{24}$");

    /** How long messages of an ended link wait for the group's next link. */
    static final long ORPHAN_MS = 10_000;
    private static final Logger LOG = LoggerFactory.getLogger(AmqpBroker.class);

    private final Messaging messaging;
    private final AccessControl accessControl;
    private final AmqpSettings settings;
    /** Core topics named by link attaches: created here, one rule for every protocol. */
    private final TopicProvisioner topics;
    private final AtomicLong ids = new AtomicLong(System.currentTimeMillis());
    /** Messages popped for a link that had ended by the time they came (see {@link #adopt}), by group. */
    private final Map<String, ArrayDeque<PoppedMessage>> orphans = new ConcurrentHashMap<>();
    private final Map<String, Set<ConsumerLink>> consumers = new ConcurrentHashMap<>();
    private final Map<String, Integer> incarnations = new ConcurrentHashMap<>();
    /** Unshared durable subscriptions with a consumer attached (one at a time; see {@link #takeSubscription}). */
    private final Set<String> activeSubscriptions = ConcurrentHashMap.newKeySet();
    /** Links consuming from each shared non-durable subscription group. */
    private final Map<String, Integer> sharedVolatileLinks = new ConcurrentHashMap<>();
    /**
     * Messages made visible again (links that ended, adopted messages nobody claimed, released deliveries) go through
     * the front-ends' one rule; a stop waits for what is in progress.
     */
    private final HeldMessages<ConsumerLink> held;
    private final ClientRegistry clients;
    private final AtomicInteger connections = new AtomicInteger();
    private volatile CompletableFuture<Void> allConnectionsEnded;

    AmqpBroker(final Messaging messaging, final AccessControl accessControl, final AmqpSettings settings) {
        this(messaging, accessControl, settings, new ClientRegistry());
    }

    /** @param clients where open connections are listed for operators */
    AmqpBroker(final Messaging messaging, final AccessControl accessControl, final AmqpSettings settings,
               final ClientRegistry clients) {
        this.clients = clients;
        this.messaging = messaging;
        this.accessControl = accessControl;
        this.settings = settings;
        this.topics = new TopicProvisioner(messaging, TopicProvisioner.Policy.normal(settings.topicQueues()));
        this.held = new HeldMessages<>(messaging);
    }

    Messaging messaging() {
        return messaging;
    }

    AccessControl accessControl() {
        return accessControl;
    }

    ClientRegistry clients() {
        return clients;
    }

    AmqpSettings settings() {
        return settings;
    }

    /** A process-unique number for generated names. */
    long nextId() {
        return ids.incrementAndGet();
    }

    /**
     * The topic, created with {@code amqp.topic-queues} queues when it does not exist (the kit's rule: fails for a name
     * it does not create, such as a system topic).
     */
    CompletableFuture<TopicConfig> ensureTopic(final String core) {
        return topics.provision(core);
    }

    /** The consumer group, created when absent with the front-end's delivery limit and {@code attributes}. */
    CompletableFuture<GroupConfig> ensureGroup(final String group, final Map<String, String> attributes) {
        final Optional<GroupConfig> existing = messaging.groups().get(group);
        if (existing.isPresent()) {
            return CompletableFuture.completedFuture(existing.get());
        }
        return messaging.groups().createOrUpdate(new GroupConfig(group, settings.maxDeliveries() - 1, false, false,
                attributes));
    }

    /**
     * The consumer group of a queue: every consumer of the queue (whatever its selector) and every browser reads it,
     * and the core tracks its messages in place ({@link GroupConfig#IN_PLACE_ATTRIBUTE}): a selector takes only what
     * it selects and leaves the rest for the queue's other consumers, a message given back is delivered again in its
     * place. A group of that name made before (by an older version, or by another protocol) is switched to in-place
     * tracking.
     */
    CompletableFuture<GroupConfig> ensureQueueGroup(final String group) {
        final Optional<GroupConfig> existing = messaging.groups().get(group);
        if (existing.isPresent() && existing.get().inPlace()) {
            return CompletableFuture.completedFuture(existing.get());
        }
        final Map<String, String> attributes = new HashMap<>(
                existing.map(GroupConfig::attributes).orElse(Map.of()));
        attributes.put(GroupConfig.IN_PLACE_ATTRIBUTE, "true");
        return messaging.groups().createOrUpdate(existing.isPresent()
                ? new GroupConfig(group, existing.get().maxReconsumeTimes(), existing.get().fifo(),
                        existing.get().broadcast(), attributes)
                : new GroupConfig(group, settings.maxDeliveries() - 1, false, false, attributes));
    }

    /**
     * Makes a group start at the current end of every queue of the topic (a new subscription sees new messages only).
     * Goes through the core's offset reset, which also moves the POP positions the core keeps in memory for a group
     * of the same name that existed before.
     */
    CompletableFuture<Void> startAtEnd(final String group, final TopicConfig topic) {
        final long now = System.currentTimeMillis() + 1;
        final String retry = SystemNames.retryTopic(group, topic.name());
        final CompletableFuture<?> retried = messaging.route(retry).isPresent()
                ? messaging.consumers().resetOffsets(group, retry, now) // redeliveries of an earlier namesake
                : CompletableFuture.completedFuture(null);
        return retried.thenCompose(x -> messaging.consumers().resetOffsets(group, topic.name(), now))
                .thenApply(x -> null);
    }

    /**
     * Keeps messages popped for a consumer link that ended before they could be delivered (a read that completed just
     * as the link ended; parked ones are cancelled). The group's next link takes them first, so order holds and no
     * delivery is counted; those nobody claims within {@value #ORPHAN_MS} ms are given back to the group, uncounted.
     */
    void adopt(final String group, final List<PoppedMessage> messages,
               final ScheduledExecutorService timer) {
        if (messages.isEmpty()) {
            return;
        }
        orphans.compute(group, (k, q) -> {
            final ArrayDeque<PoppedMessage> queue = q == null ? new ArrayDeque<>() : q;
            queue.addAll(messages);
            return queue;
        });
        final Set<ConsumerLink> live = consumers.get(group);
        if (live != null) {
            for (ConsumerLink link : live) {
                link.wake(); // a link parked on a long poll takes them now
            }
        }
        timer.schedule(() -> {
            for (PoppedMessage m : messages) {
                if (removeOrphan(group, m)) {
                    giveBack(group, m.receipt());
                }
            }
        }, ORPHAN_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * Returns a message a link took unconsumed (never delivered, or released by the client): the group's again at
     * once, its delivery not counted. A stop waits for it to be stored.
     */
    CompletableFuture<?> giveBack(final String group, final Receipt receipt) {
        return held.giveBack(group, receipt);
    }

    /**
     * Makes a message delivered and not consumed (a failed delivery, a rolled back transaction, a link that ended
     * with it unsettled) visible to the group again at once, with the delivery counted. A stop waits for it.
     */
    CompletableFuture<?> redeliver(final String group, final Receipt receipt) {
        return held.changeInvisibleTime(group, receipt.sealed(), 0);
    }

    /** A connection is up (a stop waits for it to end its links). */
    void connectionStarted() {
        connections.incrementAndGet();
    }

    /** A connection has ended its links. */
    void connectionEnded() {
        final CompletableFuture<Void> waiting = allConnectionsEnded;
        if (connections.decrementAndGet() == 0 && waiting != null) {
            waiting.complete(null);
        }
    }

    /**
     * For a stop, once the channels are closing: completes when every connection has ended its links and every
     * message held for a link (delivered unsettled, or adopted) has been made visible to its group again, so a
     * restart finds them at once instead of after their invisible time. Bounded by {@code timeoutMs}.
     */
    CompletableFuture<Void> giveEverythingBack(final long timeoutMs) {
        final CompletableFuture<Void> ended = new CompletableFuture<>();
        allConnectionsEnded = ended;
        if (connections.get() == 0) {
            ended.complete(null);
        }
        return ended.orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .exceptionally(e -> null)
                .thenCompose(x -> {
                    for (String group : List.copyOf(orphans.keySet())) {
                        held.giveBack(group, claim(group, Integer.MAX_VALUE));
                    }
                    return held.pending();
                })
                .orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .exceptionally(e -> null);
    }

    /** A consumer link of the group is live (it may be woken to take adopted messages). */
    void consumerStarted(final ConsumerLink link) {
        consumers.computeIfAbsent(link.plan().group(), k -> ConcurrentHashMap.newKeySet()).add(link);
    }

    void consumerEnded(final ConsumerLink link) {
        consumers.computeIfPresent(link.plan().group(), (k, set) -> {
            set.remove(link);
            return set.isEmpty() ? null : set;
        });
    }

    /** Takes up to {@code max} adopted messages of the group, oldest first. */
    List<PoppedMessage> claim(final String group, final int max) {
        return claim(group, max, MessageFilter.ALL);
    }

    /**
     * Takes up to {@code max} adopted messages of the group that {@code filter} selects, oldest first (consumers of a
     * queue share its group, each with its own selector).
     */
    List<PoppedMessage> claim(final String group, final int max,
                                                         final MessageFilter filter) {
        if (orphans.isEmpty()) {
            return List.of();
        }
        final List<PoppedMessage> out = new ArrayList<>();
        orphans.computeIfPresent(group, (k, q) -> {
            for (Iterator<PoppedMessage> it = q.iterator(); it.hasNext()
                    && out.size() < max; ) {
                final PoppedMessage m = it.next();
                if (filter == MessageFilter.ALL
                        || filter.matches(m.message().properties(), m.message().bornTimestamp())) {
                    it.remove();
                    out.add(m);
                }
            }
            return q.isEmpty() ? null : q;
        });
        return out;
    }

    private boolean removeOrphan(final String group, final PoppedMessage m) {
        final boolean[] removed = new boolean[1];
        orphans.computeIfPresent(group, (k, q) -> {
            removed[0] = q.remove(m);
            return q.isEmpty() ? null : q;
        });
        return removed[0];
    }

    /**
     * Marks an unshared durable subscription as having its consumer; false when it already has one (JMS allows one
     * consumer of an unshared durable subscription at a time; this process knows its own connections).
     */
    boolean takeSubscription(final String group) {
        return activeSubscriptions.add(group);
    }

    /** Its consumer went away. */
    void leaveSubscription(final String group) {
        activeSubscriptions.remove(group);
    }

    /** Whether a subscription has a consumer attached (it cannot be unsubscribed then). */
    boolean subscriptionInUse(final String group) {
        return activeSubscriptions.contains(group) || consumers.containsKey(group);
    }

    /** Counts a link on a shared non-durable subscription; true for the first. */
    boolean joinSharedVolatile(final String group) {
        return sharedVolatileLinks.merge(group, 1, Integer::sum) == 1;
    }

    /** Uncounts a link; true when it was the last (the subscription goes away). */
    boolean leaveSharedVolatile(final String group) {
        final Integer left = sharedVolatileLinks.computeIfPresent(group, (k, n) -> n <= 1 ? null : n - 1);
        return left == null;
    }

    /**
     * Deletes a group the front-end made (a subscription that ended); failures are only logged. A later group of the
     * same name is a new incarnation: messages still held for the old one are acknowledged, never handed to it.
     */
    CompletableFuture<Boolean> deleteGroup(final String group) {
        incarnations.merge(group, 1, Integer::sum);
        final List<PoppedMessage> held = claim(group, Integer.MAX_VALUE);
        if (!held.isEmpty()) {
            messaging.ackReceipts(group, held.stream().map(PoppedMessage::receipt).toList());
        }
        return messaging.groups().delete(group).whenComplete((r, e) -> {
            if (e != null) {
                LOG.debug("Deleting consumer group {} failed", group, e);
            }
        });
    }

    /** Which incarnation of a group name is current (see {@link #deleteGroup}). */
    int incarnation(final String group) {
        return incarnations.getOrDefault(group, 0);
    }

    /** Deletes a temporary topic and its consumer group. */
    void deleteTemporary(final String topic) {
        messaging.topics().delete(topic).whenComplete((r, e) -> {
            if (e != null) {
                LOG.debug("Deleting temporary topic {} failed", topic, e);
            }
        });
        deleteGroup(topic);
    }

    /**
     * At start: non-durable subscriptions and temporary topics of connections that died with the last process, and the
     * per-selector groups of queues that earlier versions made ({@code <queue>|sel-<hash>}; a queue is one group now).
     */
    void removeLeftovers() {
        for (GroupConfig g : messaging.groups().list()) {
            if (g.name().startsWith(TRANSIENT_PREFIX) || g.name().startsWith(TEMP_PREFIX)
                    || OLD_SELECTOR_GROUP.matcher(g.name()).find()) {
                deleteGroup(g.name());
            }
        }
        for (TopicConfig t : messaging.topics().list()) {
            if (t.name().startsWith(TEMP_PREFIX)) {
                deleteTemporary(t.name());
            }
        }
    }
}
