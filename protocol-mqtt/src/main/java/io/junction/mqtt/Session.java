package io.junction.mqtt;

import io.junction.core.Messaging;
import io.junction.core.message.StoredMessage;
import io.junction.spi.clients.PopConsumers;
import io.junction.spi.kit.HeldMessages;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The state of one MQTT session: its subscriptions and the readers serving them, the deliveries waiting for the
 * in-flight window, those in flight, and the inbound QoS 2 packet ids awaiting PUBREL.
 *
 * <p>Threading: every method runs on {@link #executor()}, the event loop of the connection that created the session;
 * a later connection of the same client (possibly on another loop) hands its packets over to it. Writes to a channel
 * from this executor are safe and stay in order.
 *
 * <p>Outbound flow: readers {@link #offer} messages; each matching one becomes a {@link Delivery} for the session's
 * {@link OutboundWindow}, which queues it, sends it as the in-flight window allows and takes its acknowledgements. A
 * persistent session keeps the window while the client is away; the next connection gets what was in flight again.
 */
final class Session {
    /** The session's key: the client id, inside its namespace ({@link MqttNamespace}). */
    final String clientId;
    final MqttNamespace namespace;
    private final EventLoop executor;
    private final HeldMessages<?> held;
    private final MqttSettings settings;
    private final String offsetKey;
    private boolean persistent;
    private long sessionExpirySeconds;
    private ScheduledFuture<?> expiryTask;

    private MqttConnection connection;

    /** The subscriptions and the readers serving them. */
    private final SessionSubscriptions subscriptions;

    /** The deliveries queued for the client and those in flight. */
    private final OutboundWindow window;

    /** Inbound QoS 2: packet id → the store's send, until PUBREL. */
    final Map<Integer, CompletableFuture<Void>> awaitingRelease = new HashMap<>();
    /** Outbound QoS 2 state kept durable for a persistent session (exactly once across a broker crash). */
    private final ExactlyOnce exactlyOnce;
    private boolean closed;
    /** Where shared-subscription reads note their member (POP consumers send no heartbeat; the console lists them). */
    private final PopConsumers popConsumers;

    Session(final String clientId, final MqttNamespace namespace, final EventLoop executor, final Messaging messaging,
            final HeldMessages<?> held, final MqttSettings settings, final RetainedStore retained,
            final Qos2Ledger ledger, final PopConsumers popConsumers) {
        this.popConsumers = popConsumers;
        this.clientId = clientId;
        this.held = held;
        this.namespace = namespace;
        this.executor = executor;
        this.settings = settings;
        this.offsetKey = "mqtt-" + CoreTopics.escape(clientId);
        this.subscriptions = new SessionSubscriptions(this, messaging);
        this.exactlyOnce = new ExactlyOnce(clientId, ledger, executor, this::inflight,
                subscriptions::committedOffsets);
        this.window = new OutboundWindow(this, settings, retained, subscriptions, exactlyOnce);
    }

    EventLoop executor() {
        return executor;
    }

    PopConsumers popConsumers() {
        return popConsumers;
    }

    /** The front-end's held messages: shared-subscription reads give back through it. */
    HeldMessages<?> heldMessages() {
        return held;
    }

    /** Runs {@code task} on the session's executor (inline when already there). */
    void run(final Runnable task) {
        if (executor.inEventLoop()) {
            task.run();
        } else {
            executor.execute(task);
        }
    }

    boolean persistent() {
        return persistent;
    }

    long sessionExpirySeconds() {
        return sessionExpirySeconds;
    }

    void setExpiry(final boolean persistent, final long sessionExpirySeconds) {
        this.persistent = persistent;
        this.sessionExpirySeconds = sessionExpirySeconds;
    }

    String offsetKey() {
        return offsetKey;
    }

    long longPollMs() {
        return settings.longPollMs();
    }

    boolean online() {
        return connection != null && !closed;
    }

    MqttConnection connection() {
        return connection;
    }

    /** Whether readers should read on: the window's queue is below its low-water mark. */
    boolean wantsMore() {
        return window.wantsMore();
    }

    /** How many QoS 1/2 deliveries may be in flight at once. */
    int window() {
        return window.window();
    }

    private Iterable<Delivery> inflight() {
        return window.inflight();
    }

    List<TopicFilter> filters() {
        return subscriptions.filters();
    }

    List<TopicFilter> sharedFilters(final String shareName) {
        return subscriptions.sharedFilters(shareName);
    }

    List<TopicFilter> allFilters() {
        return subscriptions.allFilters();
    }

    Map<String, Subscription> subscriptions() {
        return subscriptions.byFilter();
    }

    // ---------------------------------------------------------------- connection lifecycle

    /** A connection took the session; resends what was in flight and resumes reading. */
    void attach(final MqttConnection conn, final int receiveMaximum, final long maxPacketSize) {
        if (expiryTask != null) {
            expiryTask.cancel(false);
            expiryTask = null;
        }
        this.connection = conn;
        window.clientLimits(receiveMaximum, maxPacketSize);
        window.resend(conn);
        window.drain();
        subscriptions.resumeAll();
    }

    /** The connection went away: a clean session ends, a persistent one starts its expiry clock. */
    void detach(final MqttConnection conn, final Runnable onExpired) {
        if (connection != conn) {
            return;
        }
        connection = null;
        if (!persistent) {
            close();
            onExpired.run();
        } else {
            startExpiryClock(onExpired);
        }
    }

    /** Ends the session after its expiry interval unless a connection takes it first (never for 0xFFFFFFFF). */
    void startExpiryClock(final Runnable onExpired) {
        if (sessionExpirySeconds > 0 && sessionExpirySeconds < 0xFFFFFFFFL) {
            expiryTask = executor.schedule(() -> {
                if (connection == null && !closed) {
                    close();
                    onExpired.run();
                }
            }, sessionExpirySeconds, TimeUnit.SECONDS);
        }
    }

    /** Ends the session: stops its readers and forgets its state. */
    void close() {
        closed = true;
        exactlyOnce.stop();
        subscriptions.close();
        window.clear();
    }

    boolean closed() {
        return closed;
    }

    // ---------------------------------------------------------------- subscriptions

    /** Adds or replaces a subscription; returns true when it already existed. */
    boolean subscribe(final Subscription sub) {
        return subscriptions.subscribe(sub);
    }

    /** Restores a subscription of a session read back at start: readers resume from committed offsets. */
    void restore(final Subscription sub) {
        subscriptions.restore(sub);
    }

    boolean unsubscribe(final String filterText) {
        return subscriptions.unsubscribe(filterText);
    }

    /**
     * Takes the outbound QoS 2 state read back at start (before the subscriptions, whose readers start from the
     * offsets it knew): the deliveries in flight at the crash keep their packet ids.
     */
    void restoreQos2(final Qos2Ledger.Saved saved) {
        for (Delivery d : exactlyOnce.restore(saved)) {
            window.restored(d);
        }
    }

    /**
     * After the subscriptions are restored: a restored in-flight delivery that no reader will bring again (its
     * subscription is gone) is forgotten unless it was released (then its PUBREL still goes out).
     */
    void dropUnreachableQos2() {
        for (Delivery d : exactlyOnce.unclaimed()) {
            if (!d.released && !subscriptions.readsTopic(d.position.queue().coreTopic())) {
                exactlyOnce.claim(d.position);
                window.forget(d);
            }
        }
    }

    /**
     * An inbound QoS 2 PUBLISH of a persistent session is about to be stored: the unique id to store it with (recorded
     * in the QoS 2 ledger ahead of it); null for a clean session, whose state a restart ends anyway.
     */
    String recordInbound(final int packetId, final String coreTopic) {
        return persistent ? exactlyOnce.receiving(packetId, coreTopic) : null;
    }

    /** The inbound QoS 2 PUBLISH recorded under a packet id (across a restart too), or null. */
    Qos2Ledger.Inbound recordedInbound(final int packetId) {
        return exactlyOnce.inbound(packetId);
    }

    /** Forgets a recorded inbound packet id (PUBREL came, or its store failed); false when none was recorded. */
    boolean releaseInbound(final int packetId) {
        return exactlyOnce.released(packetId);
    }

    /** The read offset of a queue as the QoS 2 ledger knew it at start (it may be ahead of the core's), or -1. */
    long restoredOffset(final String coreTopic, final int queueId) {
        return exactlyOnce.restoredOffset(coreTopic, queueId);
    }

    // ---------------------------------------------------------------- outbound

    /**
     * Offers a stored message read for this session. Returns false (and will not call {@code onDone}) when no
     * subscription wants it: filtered out, No Local, or expired. The delivery waits in the queue: the reader calls
     * {@link #drain()} once after offering a whole batch, so the batch goes out in one network write.
     *
     * @param shareName the share group that read it, or null for the session's own subscriptions
     */
    boolean offer(final String coreTopic, final StoredMessage m, final Runnable onDone, final String shareName) {
        if (closed) {
            return false;
        }
        // A persistent session's own subscriptions: QoS 2 state is in the ledger, by the message's store position.
        final Qos2Ledger.Position position = persistent && shareName == null
                ? new Qos2Ledger.Position(new Qos2Ledger.Queue(coreTopic, m.queueId()), m.queueOffset()) : null;
        if (position != null && exactlyOnce.isDone(position)) {
            return false; // delivered exactly once before a restart; read again because offsets are saved lazily
        }
        final Delivery restored = position == null ? null : exactlyOnce.claim(position);
        final MqttMessageMapping.Outbound out = OutboundMappings.of(namespace.local(coreTopic), m,
                System.currentTimeMillis());
        if (restored != null) {
            window.readAgain(new Delivery(out.topic(), out.payload(), 2, out.retain(), out.properties(), 0, onDone)
                    .takeOver(restored)); // in flight at the restart
            return true;
        }
        if (out.expiresAt() > 0 && out.expiresAt() <= System.currentTimeMillis()
                || !TopicFilter.isValidTopicName(out.topic())) {
            return false; // expired, or a core topic whose name is no MQTT topic name
        }
        final MqttConnection reader = connection;
        if (shareName == null && reader != null && !reader.mayRead(coreTopic)) {
            return false; // SUB taken away since the SUBSCRIBE: not for this user (a shared reader asks before popping)
        }
        int qos = -1;
        boolean retainAsPublished = false;
        final List<Integer> ids = new ArrayList<>();
        for (Subscription s : subscriptions.byFilter().values()) {
            final TopicFilter f = s.filter();
            final boolean sameScope = shareName == null ? !f.shared() : shareName.equals(f.shareGroup());
            if (!sameScope || !f.matches(out.topic())) {
                continue;
            }
            if (s.noLocal() && clientId.equals(out.publisher())) {
                continue;
            }
            qos = Math.max(qos, s.qos());
            retainAsPublished |= s.retainAsPublished();
            if (s.subscriptionId() > 0) {
                ids.add(s.subscriptionId());
            }
        }
        if (qos < 0) {
            return false;
        }
        final Delivery d = new Delivery(out.topic(), out.payload(), Math.min(qos, out.qos()),
                retainAsPublished && out.retain(), RetainedBacklog.withIds(out.properties(), ids), out.expiresAt(),
                onDone);
        if (d.qos == 2 && position != null) {
            d.position = position;
            d.recorded = false;
        }
        window.enqueue(d);
        return true;
    }

    /** Sends retained messages matching a new subscription (retain flag set, QoS capped by the subscription). */
    void sendRetained(final Subscription sub) {
        window.sendRetained(sub);
    }

    /** Sends queued deliveries while the channel is writable and the window has room. */
    void drain() {
        window.drain();
    }

    /** The connection read everything the socket had: sends what this read's acknowledgements made room for. */
    void readComplete() {
        window.readComplete();
    }

    void onPubAck(final int packetId) {
        window.onPubAck(packetId);
    }

    void onPubRec(final int packetId, final boolean failed) {
        window.onPubRec(packetId, failed);
    }

    void onPubComp(final int packetId) {
        window.onPubComp(packetId);
    }

    int inflightCount() {
        return window.inflightCount();
    }

    /** For tests and diagnostics. */
    Channel channel() {
        return connection == null ? null : connection.channel();
    }
}
