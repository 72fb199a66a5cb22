package io.junction.mqtt;

import io.junction.core.Messaging;
import io.junction.core.message.StoredMessage;
import io.junction.spi.kit.HeldMessages;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 * <p>Outbound flow: readers {@link #offer} messages; each becomes a {@link Delivery} queued in {@code pending}. The
 * queue drains while the channel is writable (bounded write buffer) and, for QoS 1/2, while fewer than
 * {@link #window()} deliveries are in flight. A persistent session keeps both queues while the client is away and, on
 * reconnect, resends in-flight PUBLISHes with DUP set and PUBRELs for released QoS 2 ones, in their original order.
 */
final class Session {
    /** The session's key: the client id, inside its namespace ({@link MqttNamespace}). */
    final String clientId;
    final MqttNamespace namespace;
    private final EventLoop executor;
    private final Messaging messaging;
    private final HeldMessages<?> held;
    private final MqttSettings settings;
    private final RetainedStore retained;
    private final String offsetKey;
    private boolean persistent;
    private long sessionExpirySeconds;
    private ScheduledFuture<?> expiryTask;

    private MqttConnection connection;
    private int clientReceiveMaximum = 65535;
    private long clientMaxPacketSize = Long.MAX_VALUE;

    /** The subscriptions and the readers serving them. */
    private final SessionSubscriptions subscriptions;

    private final ArrayDeque<Delivery> pending = new ArrayDeque<>();
    private long pendingBytes;
    private long inflightBytes;
    /** Retained messages new subscriptions still have to get, and what readers offered meanwhile. */
    private final RetainedBacklog retainedBacklog = new RetainedBacklog();
    private boolean drainScheduled;
    /** A PUBACK of the current read freed room in the window (see {@link #readComplete()}). */
    private boolean drainAfterRead;
    private final LinkedHashMap<Integer, Delivery> inflight = new LinkedHashMap<>();
    private int nextPacketId = 1;

    /** Inbound QoS 2: packet id → the store's send, until PUBREL. */
    final Map<Integer, CompletableFuture<Void>> awaitingRelease = new HashMap<>();
    /** Outbound QoS 2 state kept durable for a persistent session (exactly once across a broker crash). */
    private final ExactlyOnce exactlyOnce;
    /** Deliveries a drain took that wait for the ledger to record their QoS 2 packet ids before they are written. */
    private List<Delivery> recording;
    private boolean closed;

    Session(final String clientId, final MqttNamespace namespace, final EventLoop executor, final Messaging messaging,
            final HeldMessages<?> held, final MqttSettings settings, final RetainedStore retained,
            final Qos2Ledger ledger) {
        this.clientId = clientId;
        this.held = held;
        this.namespace = namespace;
        this.executor = executor;
        this.messaging = messaging;
        this.settings = settings;
        this.retained = retained;
        this.offsetKey = "mqtt-" + CoreTopics.escape(clientId);
        this.subscriptions = new SessionSubscriptions(this, messaging);
        this.exactlyOnce = new ExactlyOnce(clientId, ledger, executor, inflight::values,
                subscriptions::committedOffsets);
    }

    EventLoop executor() {
        return executor;
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

    /**
     * Readers pull on while fewer deliveries than this, holding fewer payload bytes than {@link #PENDING_BYTES}, wait
     * for the window (backpressure towards the store). Deep enough that a subscriber on a busy event loop gets big
     * batches per turn.
     */
    private static final int PENDING_LOW_WATER = 512;
    private static final long PENDING_BYTES = 1 << 20;
    /**
     * Payload bytes in flight per session, besides the count window: many large messages never sit unacknowledged in
     * memory at once (one always may).
     */
    private static final long INFLIGHT_BYTES = 4 << 20;

    /** At most this many PUBLISHes per drain, then the rest in a later task: one session never holds its loop long. */
    private static final int WRITES_PER_TURN = 256;

    boolean wantsMore() {
        return pending.size() < PENDING_LOW_WATER && pendingBytes < PENDING_BYTES && retainedBacklog.isEmpty();
    }

    int window() {
        return Math.min(clientReceiveMaximum, settings.maxInflight());
    }

    List<TopicFilter> filters() {
        return subscriptions.filters();
    }

    List<TopicFilter> sharedFilters(final String shareName) {
        return subscriptions.sharedFilters(shareName);
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
        this.clientReceiveMaximum = receiveMaximum;
        this.clientMaxPacketSize = maxPacketSize;
        final PublishWriter out = new PublishWriter(conn);
        for (Delivery d : inflight.values()) {
            if (d.released) {
                if (d.releaseRecorded) { // else the ledger write under way sends it
                    out.finish(); // keeps the packets in order
                    conn.write(pubRel(d.packetId));
                }
            } else if (d.recorded && !d.isPlaceholder() && !d.resend) {
                // a placeholder's message comes when its reader reads it; a queued resend goes out in its place
                out.write(d, d.sent, inflight.size());
                d.sent = true;
            }
        }
        out.finish();
        conn.flush();
        drain();
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
        pending.clear();
        pendingBytes = 0;
        inflightBytes = 0;
        retainedBacklog.clear();
        inflight.clear();
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
            inflight.put(d.packetId, d);
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
                inflight.remove(d.packetId, d);
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
            // In flight at the restart: the same packet id again, PUBLISH with DUP unless it was released already.
            // It goes out behind what was read before it (QoS 1 messages not acknowledged before the restart are read
            // again too), so the client sees them in the order they were first sent (4.6).
            final Delivery d = new Delivery(out.topic(), out.payload(), 2, out.retain(), out.properties(),
                    0, onDone).takeOver(restored);
            inflight.put(d.packetId, d);
            inflightBytes += d.payload.length;
            if (!d.released) {
                d.resend = true;
                enqueue(d);
            }
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
        enqueue(d);
        return true;
    }

    /** Sends retained messages matching a new subscription (retain flag set, QoS capped by the subscription). */
    void sendRetained(final Subscription sub) {
        if (sub.filter().shared()) {
            return; // 3.8.4: retained messages are not sent for shared subscriptions
        }
        retainedBacklog.add(sub, retained.matching(sub.filter(), namespace));
        drain();
    }

    /** Turns retained messages of the backlog into deliveries until {@code pending} is at its low-water mark. */
    private void takeRetained() {
        retainedBacklog.take(PENDING_LOW_WATER - pending.size(), connection, namespace, this::addPending);
    }

    /** Queues a delivery, behind the retained backlog when there is one (readers do not pull while it lasts). */
    private void enqueue(final Delivery d) {
        if (retainedBacklog.isEmpty()) {
            addPending(d);
        } else {
            retainedBacklog.hold(d);
        }
    }

    private void addPending(final Delivery d) {
        pending.add(d);
        pendingBytes += d.payload.length;
    }

    /** Sends queued deliveries while the channel is writable and the window has room. */
    void drain() {
        final MqttConnection conn = connection;
        if (conn == null || closed || recording != null) {
            return; // while the ledger records, writing on would overtake what waits for it
        }
        boolean wrote = false;
        List<Delivery> toRecord = null;
        int budget = WRITES_PER_TURN;
        final PublishWriter out = new PublishWriter(conn);
        while (conn.writable()) {
            if (pending.size() < PENDING_LOW_WATER && !retainedBacklog.isEmpty()) {
                takeRetained();
            }
            if (pending.isEmpty()) {
                break;
            }
            if (budget-- == 0) {
                if (!drainScheduled) { // the rest after whatever else waits on this loop (a close, other sessions)
                    drainScheduled = true;
                    executor.execute(() -> {
                        drainScheduled = false;
                        drain();
                    });
                }
                break;
            }
            final Delivery d = pending.peek();
            if (d.resend) { // already in flight: no window check, no new packet id
                pending.poll();
                pendingBytes -= d.payload.length;
                if (toRecord != null) {
                    toRecord.add(d);
                    continue;
                }
                out.write(d, true, Math.min(budget, pending.size()));
                d.resend = false;
                wrote = true;
                continue;
            }
            if (d.qos > 0 && (inflight.size() >= window()
                    || inflightBytes > 0 && inflightBytes + d.payload.length > INFLIGHT_BYTES)) {
                break;
            }
            pending.poll();
            pendingBytes -= d.payload.length;
            if (d.expiresAt > 0 && d.expiresAt <= System.currentTimeMillis()
                    || clientMaxPacketSize != Long.MAX_VALUE && estimatedSize(d) > clientMaxPacketSize) {
                d.done(); // 3.3.2-5 expired; 3.1.2-24 too large for the client: discarded
                continue;
            }
            if (d.qos > 0) {
                d.packetId = allocatePacketId();
                inflight.put(d.packetId, d);
                inflightBytes += d.payload.length;
            }
            if (toRecord == null && !d.recorded) {
                toRecord = new ArrayList<>();
            }
            if (toRecord != null) {
                toRecord.add(d); // this and everything after it: in order, once the ledger has the packet ids
                continue;
            }
            out.write(d, false, Math.min(budget, pending.size()));
            d.sent = true;
            wrote = true;
            if (d.qos == 0) {
                d.done();
            }
        }
        if (wrote) {
            out.finish();
            conn.flush();
        }
        if (toRecord != null) {
            final List<Delivery> batch = toRecord;
            recording = batch;
            exactlyOnce.save().thenRun(() -> recorded(batch));
            return;
        }
        if (wantsMore()) {
            subscriptions.resumeTopicReaders();
        }
    }

    /** The ledger holds the packet ids of a drain's QoS 2 deliveries: they (and what followed them) go out now. */
    private void recorded(final List<Delivery> batch) {
        recording = null;
        if (closed) {
            return;
        }
        final MqttConnection conn = connection;
        final PublishWriter out = conn == null ? null : new PublishWriter(conn);
        for (Delivery d : batch) {
            d.recorded = true;
            if (d.resend) {
                d.resend = false; // offline: the next connection's attach sends it with the rest in flight
                if (conn != null) {
                    out.write(d, true, batch.size());
                }
                continue;
            }
            if (conn == null) {
                if (d.qos == 0) {
                    d.done(); // offline: QoS 0 is not kept; QoS 1/2 wait in flight for the next connection
                }
                continue;
            }
            if (!d.sent && inflight.get(d.packetId) == d || d.qos == 0) {
                out.write(d, false, batch.size());
                d.sent = true;
                if (d.qos == 0) {
                    d.done();
                }
            }
        }
        if (conn != null) {
            out.finish();
            conn.flush();
        }
        drain();
    }

    void onPubAck(final int packetId) {
        final Delivery d = inflight.get(packetId);
        if (d != null && d.qos == 1) {
            inflight.remove(packetId);
            inflightBytes -= d.payload.length;
            d.done();
            drainAfterRead = true;
        }
    }

    /**
     * The connection read everything the socket had: send what the acknowledgements of this read made room for. One
     * drain per read rather than per PUBACK: each drain ends with a flush, a write system call, and a subscriber
     * acknowledges in bursts of hundreds.
     */
    void readComplete() {
        if (drainAfterRead) {
            drainAfterRead = false;
            drain();
        }
    }

    void onPubRec(final int packetId, final boolean failed) {
        final Delivery d = inflight.get(packetId);
        final MqttConnection conn = connection;
        if (d == null || d.qos != 2) {
            if (conn != null) {
                conn.writeAndFlush(pubRel(packetId));
            }
            return;
        }
        if (failed) {
            complete(d);
            return;
        }
        if (d.released) {
            if (d.releaseRecorded && conn != null) {
                conn.writeAndFlush(pubRel(packetId)); // a repeated PUBREC
            }
            return;
        }
        d.released = true;
        if (d.position == null) {
            d.releaseRecorded = true;
            if (conn != null) {
                conn.writeAndFlush(pubRel(packetId));
            }
            return;
        }
        // The client may forget the packet id once it has the PUBREL: the ledger must know first.
        exactlyOnce.save().thenRun(() -> {
            d.releaseRecorded = true;
            final MqttConnection now = connection;
            if (now != null && inflight.get(packetId) == d) {
                now.writeAndFlush(pubRel(packetId));
            }
        });
    }

    void onPubComp(final int packetId) {
        final Delivery d = inflight.get(packetId);
        if (d != null && d.qos == 2) {
            complete(d);
        }
    }

    /** A QoS 2 delivery is finished with (PUBCOMP, or a PUBREC with an error reason). */
    private void complete(final Delivery d) {
        inflight.remove(d.packetId);
        if (!d.isPlaceholder()) {
            inflightBytes -= d.payload.length;
        }
        d.done();
        if (d.position != null) {
            exactlyOnce.completed(d);
        }
        drain();
    }

    int inflightCount() {
        return inflight.size();
    }

    private int allocatePacketId() {
        for (int i = 0; i < 65535; i++) {
            final int id = nextPacketId;
            nextPacketId = nextPacketId == 65535 ? 1 : nextPacketId + 1;
            if (!inflight.containsKey(id)) {
                return id;
            }
        }
        throw new IllegalStateException("no free packet id");
    }

    private static long estimatedSize(final Delivery d) {
        long size = 5 + 2 + (long) d.topic.getBytes(StandardCharsets.UTF_8).length + 2 + d.payload.length + 4;
        for (MqttProperties.MqttProperty<?> p : d.properties.listAll()) {
            size += 3 + String.valueOf(p.value()).length() * 3L;
        }
        return size;
    }

    static MqttMessage pubRel(final int packetId) {
        return new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBREL, false, MqttQoS.AT_LEAST_ONCE, false, 0),
                MqttMessageIdVariableHeader.from(packetId));
    }

    /** For tests and diagnostics. */
    Channel channel() {
        return connection == null ? null : connection.channel();
    }
}
