package io.junction.mqtt;

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
import java.util.LinkedHashMap;
import java.util.List;

/**
 * A session's outbound flow: the deliveries waiting for the in-flight window ({@code pending}), those in flight until
 * acknowledged, their packet ids, and the PUBACK / PUBREC / PUBCOMP that free the window again.
 *
 * <p>The queue drains while the channel is writable (bounded write buffer) and, for QoS 1/2, while fewer than
 * {@link #window()} deliveries are in flight. A persistent session keeps both queues while the client is away and, on
 * reconnect, {@link #resend} sends in-flight PUBLISHes with DUP set and PUBRELs for released QoS 2 ones, in their
 * original order. A tracked QoS 2 delivery goes out only once the {@link ExactlyOnce} ledger recorded its packet id.
 *
 * <p>Threading: every method runs on the session's executor.
 */
final class OutboundWindow {
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

    private final Session session;
    private final EventLoop executor;
    private final MqttSettings settings;
    private final RetainedStore retained;
    private final SessionSubscriptions subscriptions;
    private final ExactlyOnce exactlyOnce;

    private int clientReceiveMaximum = 65535;
    private long clientMaxPacketSize = Long.MAX_VALUE;
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
    /** Deliveries a drain took that wait for the ledger to record their QoS 2 packet ids before they are written. */
    private List<Delivery> recording;

    OutboundWindow(final Session session, final MqttSettings settings, final RetainedStore retained,
                   final SessionSubscriptions subscriptions, final ExactlyOnce exactlyOnce) {
        this.session = session;
        this.executor = session.executor();
        this.settings = settings;
        this.retained = retained;
        this.subscriptions = subscriptions;
        this.exactlyOnce = exactlyOnce;
    }

    boolean wantsMore() {
        return pending.size() < PENDING_LOW_WATER && pendingBytes < PENDING_BYTES && retainedBacklog.isEmpty();
    }

    int window() {
        return Math.min(clientReceiveMaximum, settings.maxInflight());
    }

    Iterable<Delivery> inflight() {
        return inflight.values();
    }

    int inflightCount() {
        return inflight.size();
    }

    /** The limits of the connection that took the session (MQTT 5 Receive Maximum and Maximum Packet Size). */
    void clientLimits(final int receiveMaximum, final long maxPacketSize) {
        this.clientReceiveMaximum = receiveMaximum;
        this.clientMaxPacketSize = maxPacketSize;
    }

    /** A new connection took the session: what was in flight goes out again, in its original order. */
    void resend(final MqttConnection conn) {
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
    }

    /** Forgets every delivery (the session ended). */
    void clear() {
        pending.clear();
        pendingBytes = 0;
        inflightBytes = 0;
        retainedBacklog.clear();
        inflight.clear();
    }

    /** A delivery restored from the QoS 2 ledger at start: in flight under its old packet id. */
    void restored(final Delivery d) {
        inflight.put(d.packetId, d);
    }

    /** Forgets a restored in-flight delivery that no reader will bring again. */
    void forget(final Delivery d) {
        inflight.remove(d.packetId, d);
    }

    /**
     * A message in flight at the restart, read again: the same packet id again, PUBLISH with DUP unless it was
     * released already. It goes out behind what was read before it (QoS 1 messages not acknowledged before the restart
     * are read again too), so the client sees them in the order they were first sent (4.6).
     */
    void readAgain(final Delivery d) {
        inflight.put(d.packetId, d);
        inflightBytes += d.payload.length;
        if (!d.released) {
            d.resend = true;
            enqueue(d);
        }
    }

    /** Sends retained messages matching a new subscription (retain flag set, QoS capped by the subscription). */
    void sendRetained(final Subscription sub) {
        if (sub.filter().shared()) {
            return; // 3.8.4: retained messages are not sent for shared subscriptions
        }
        retainedBacklog.add(sub, retained.matching(sub.filter(), session.namespace));
        drain();
    }

    /** Turns retained messages of the backlog into deliveries until {@code pending} is at its low-water mark. */
    private void takeRetained() {
        retainedBacklog.take(PENDING_LOW_WATER - pending.size(), session.connection(), session.namespace,
                this::addPending);
    }

    /** Queues a delivery, behind the retained backlog when there is one (readers do not pull while it lasts). */
    void enqueue(final Delivery d) {
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
        final MqttConnection conn = session.connection();
        if (conn == null || session.closed() || recording != null) {
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
        if (session.closed()) {
            return;
        }
        final MqttConnection conn = session.connection();
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
        final MqttConnection conn = session.connection();
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
            final MqttConnection now = session.connection();
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
}
