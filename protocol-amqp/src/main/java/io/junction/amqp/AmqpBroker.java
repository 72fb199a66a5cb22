package io.junction.amqp;

import io.junction.core.Messaging;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.tenancy.AccessControl;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
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

    private static final Logger LOG = LoggerFactory.getLogger(AmqpBroker.class);

    private final Messaging messaging;
    private final AccessControl accessControl;
    private final AmqpSettings settings;
    private final AtomicLong ids = new AtomicLong(System.currentTimeMillis());
    /** Links consuming from each shared non-durable subscription group. */
    private final Map<String, Integer> sharedVolatileLinks = new ConcurrentHashMap<>();

    AmqpBroker(final Messaging messaging, final AccessControl accessControl, final AmqpSettings settings) {
        this.messaging = messaging;
        this.accessControl = accessControl;
        this.settings = settings;
    }

    Messaging messaging() {
        return messaging;
    }

    AccessControl accessControl() {
        return accessControl;
    }

    AmqpSettings settings() {
        return settings;
    }

    /** A process-unique number for generated names. */
    long nextId() {
        return ids.incrementAndGet();
    }

    /** The topic, created with {@code amqp.topic-queues} queues when it does not exist. */
    CompletableFuture<TopicConfig> ensureTopic(final String core) {
        final Optional<TopicConfig> existing = messaging.route(core);
        if (existing.isPresent()) {
            return CompletableFuture.completedFuture(existing.get());
        }
        return messaging.topics().createIfAbsent(TopicConfig.of(core, settings.topicQueues()));
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

    /** Makes a new group start at the current end of every queue of the topic (a subscription sees new messages). */
    void startAtEnd(final String group, final TopicConfig topic) {
        for (int q = 0; q < topic.queueCount(); q++) {
            messaging.commitOffset(group, topic.name(), q, messaging.maxOffset(topic.name(), q));
        }
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

    /** Deletes a group the front-end made (a subscription that ended); failures are only logged. */
    void deleteGroup(final String group) {
        messaging.groups().delete(group).whenComplete((r, e) -> {
            if (e != null) {
                LOG.debug("Deleting consumer group {} failed", group, e);
            }
        });
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

    /** At start: non-durable subscriptions and temporary topics of connections that died with the last process. */
    void removeLeftovers() {
        for (GroupConfig g : messaging.groups().list()) {
            if (g.name().startsWith(TRANSIENT_PREFIX) || g.name().startsWith(TEMP_PREFIX)) {
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
