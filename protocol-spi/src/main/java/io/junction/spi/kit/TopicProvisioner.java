package io.junction.spi.kit;

import io.junction.core.Messaging;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.SystemNames;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicNames;
import io.junction.core.meta.TopicType;
import io.junction.tenancy.Namespaces;
import io.junction.tenancy.ResourceKind;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The one rule for a topic a client names that does not exist yet: every front-end asks here instead of creating
 * topics its own way.
 *
 * <p>The front-end's {@link Policy} (read from its own configuration keys) says whether it creates topics at all, with
 * how many queues and of which type. A name is created only when the store would take it ({@link TopicNames}) and it
 * is not one of the topics the store, the SDKs and the front-ends keep for themselves ({@link Namespaces#isInternal}:
 * transaction, timer and revive topics, {@code TBW102}, MQTT state). A group's retry and dead-letter topics may be
 * created: clients read them, and a reader may attach before the first dead letter. Whether the client may
 * create the topic is the front-end's question (each protocol asks its own right: PUB, CREATE, SUB), so its answer
 * comes in as {@code mayCreate}; namespaces are applied before, as the name given here is the core name.
 *
 * <p>Concurrent asks for the same unknown name make one creation and share it; the store keeps a topic another
 * front-end created meanwhile as it is. Nothing here blocks: an existing topic answers at once, a creation completes
 * when the store has recorded it.
 */
public final class TopicProvisioner {
    private final Messaging messaging;
    private final Policy policy;
    private final ConcurrentMap<String, CompletableFuture<TopicConfig>> creating = new ConcurrentHashMap<>();

    /**
     * What a front-end's auto-creation does.
     *
     * @param autoCreate whether an unknown topic is created at all (off: it stays unknown)
     * @param queueCount queues of a created topic, 1 to {@link TopicConfig#MAX_QUEUES}
     * @param type       type of a created topic
     */
    public record Policy(boolean autoCreate, int queueCount, TopicType type) {
        public Policy {
            Objects.requireNonNull(type, "type");
            if (queueCount < 1 || queueCount > TopicConfig.MAX_QUEUES) {
                throw new IllegalArgumentException("queue count " + queueCount + " not in 1.."
                        + TopicConfig.MAX_QUEUES);
            }
        }

        /** Creates NORMAL topics of {@code queueCount} queues. */
        public static Policy normal(final int queueCount) {
            return new Policy(true, queueCount, TopicType.NORMAL);
        }
    }

    public TopicProvisioner(final Messaging messaging, final Policy policy) {
        this.messaging = Objects.requireNonNull(messaging, "messaging");
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    public Policy policy() {
        return policy;
    }

    /**
     * Why a client may not have {@code topic} created, or null when it may: not a name the store takes, or a system
     * name.
     */
    public static String refusal(final String topic) {
        if (!TopicNames.isValid(topic)) {
            return "topic name '" + topic + "' is not valid: use letters, digits and _ - % | . (at most "
                    + TopicNames.MAX_LENGTH + " characters)";
        }
        if (SystemNames.isTransactionTopic(topic) || Namespaces.isInternal(ResourceKind.TOPIC, topic)) {
            return "topic " + topic + " is a system topic: it is not created on demand";
        }
        return null;
    }

    /**
     * The topic, created when it does not exist. Fails with {@link StoreError#TOPIC_NOT_FOUND} when it does not exist
     * and auto-creation is off, with {@link StoreError#ILLEGAL_ARGUMENT} when the name may not be created.
     */
    public CompletableFuture<TopicConfig> provision(final String topic) {
        return find(topic, true).thenApply(t -> t.orElseThrow(() -> new StoreException(StoreError.TOPIC_NOT_FOUND,
                "topic " + topic + " does not exist")));
    }

    /**
     * The topic as it is; when it does not exist, created if {@code mayCreate} (the client's right, decided by the
     * front-end) and auto-creation is on, else empty. Fails with {@link StoreError#ILLEGAL_ARGUMENT} when it would be
     * created but the name may not be.
     */
    public CompletableFuture<Optional<TopicConfig>> find(final String topic, final boolean mayCreate) {
        final Optional<TopicConfig> existing = messaging.route(topic);
        if (existing.isPresent() || !mayCreate || !policy.autoCreate()) {
            return CompletableFuture.completedFuture(existing);
        }
        final String refused = refusal(topic);
        if (refused != null) {
            return CompletableFuture.failedFuture(new StoreException(StoreError.ILLEGAL_ARGUMENT, refused));
        }
        return create(topic).thenApply(Optional::of);
    }

    private CompletableFuture<TopicConfig> create(final String topic) {
        final CompletableFuture<TopicConfig> created = creating.computeIfAbsent(topic, this::createIfAbsent);
        // Outside computeIfAbsent: a creation already complete must not remove its own entry from within the map's
        // update of that entry (ConcurrentHashMap refuses that as a recursive update).
        created.whenComplete((c, e) -> creating.remove(topic, created));
        return created;
    }

    private CompletableFuture<TopicConfig> createIfAbsent(final String topic) {
        try {
            return messaging.topics().createIfAbsent(new TopicConfig(topic, policy.queueCount(), policy.type(),
                    TopicConfig.PERM_READ_WRITE, Map.of()));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
