package io.junction.mqtt;

import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import io.junction.core.Receipt;
import io.junction.core.filter.FilterSpec;
import io.junction.core.filter.MessageFilter;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.kit.HeldMessages;
import io.netty.channel.Channel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Reads one core topic for the members of a shared subscription ({@code $share/{group}/{filter}}) in one session,
 * with POP under the consumer group {@code mqtt-share-<group>}: the core balances messages over every member of every
 * session, a message is acked when its delivery is finished (QoS 0 written, QoS 1/2 acknowledged) and redelivered to
 * some member when it is not acked within the invisible time (a member that went away). All methods run on the
 * session's executor.
 */
final class SharedReader {
    private static final long RETRY_MS = 500;
    private static final long INVISIBLE_MS = 30_000;

    private final Session session;
    private final Messaging messaging;
    /** Gives back what was popped for a member that may not take it after all (the front-end's one rule). */
    private final HeldMessages<?> held;
    private final String coreTopic;
    private final String group;
    private final String shareName;
    private final MessageFilter filter;
    private boolean popping;
    private CompletableFuture<PopResult> inFlight;
    private int outstanding;
    private boolean closed;
    /** A {@link #resumeLater} is pending: one at a time, however often {@link #resume} is called meanwhile. */
    private boolean resumeScheduled;

    SharedReader(final Session session, final Messaging messaging, final String shareName, final String coreTopic) {
        this.session = session;
        this.messaging = messaging;
        this.held = session.heldMessages();
        this.shareName = shareName;
        this.coreTopic = coreTopic;
        this.group = session.namespace.core("mqtt-share-" + CoreTopics.escape(shareName));
        // Messages other protocols sent carry no MQTT topic: they are delivered under the core topic's first level.
        final String fallbackTopic = CoreTopics.unescape(session.namespace.local(coreTopic));
        this.filter = new MessageFilter() {
            @Override
            public boolean matchesTagHash(final long tagHash) {
                return true;
            }

            @Override
            public boolean matches(final Map<String, String> properties) {
                return MqttTopicsKind.matches(session.sharedFilters(shareName), fallbackTopic, properties);
            }

            @Override
            public FilterSpec spec() {
                return MqttTopicsKind.spec(fallbackTopic, session.sharedFilters(shareName));
            }
        };
    }

    void resume() {
        if (closed || popping || outstanding > 0 || !session.online()) {
            return;
        }
        if (messaging.route(coreTopic).isEmpty() || !mayRead()) {
            // a topic still to come, or SUB taken away: ask again soon (each ask costs a version read until the rules
            // change), taking nothing the group's other members may read meanwhile
            resumeLater();
            return;
        }
        popping = true;
        final Channel channel = session.channel();
        session.popConsumers().popped(group, "mqtt", session.clientId,
                channel == null ? "" : ClientRegistry.address(channel.remoteAddress()));
        inFlight = messaging.pop(new PopRequest(group, coreTopic, filter, Math.min(PopRequest.CLIENT_BATCH,
                session.window()), INVISIBLE_MS, session.longPollMs()));
        inFlight.whenCompleteAsync(this::onPopped, session.executor());
    }

    /** Stops reading; a pop parked in the core is dropped now, so it takes nothing for a member that left. */
    void close() {
        closed = true;
        if (inFlight != null) {
            inFlight.cancel(false);
        }
    }

    private void onPopped(final PopResult r, final Throwable e) {
        popping = false;
        inFlight = null;
        final List<PoppedMessage> messages = r == null ? List.of() : r.messages();
        if (closed || !session.online()) {
            held.giveBack(group, messages); // never delivered: another member takes it at once, uncounted
            return;
        }
        if (e != null) {
            session.executor().schedule(this::resume, RETRY_MS, TimeUnit.MILLISECONDS);
            return;
        }
        if (!mayRead()) {
            held.giveBack(group, messages); // popped before SUB was taken away: another member takes them now
            resumeLater();
            return;
        }
        outstanding = 1;
        for (PoppedMessage m : messages) {
            outstanding++;
            final List<Receipt> receipt = List.of(m.receipt());
            if (!session.offer(coreTopic, m.message(), () -> {
                messaging.ackReceipts(group, receipt);
                finished();
            }, shareName)) {
                messaging.ackReceipts(group, receipt); // matches no filter of this share: nobody in it wants it
                outstanding--;
            }
        }
        session.drain();
        finished();
    }

    private void resumeLater() {
        if (!resumeScheduled) {
            resumeScheduled = true;
            session.executor().schedule(() -> {
                resumeScheduled = false;
                resume();
            }, RETRY_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** Whether the session's user may read the topic through the share group under the rules in force now. */
    private boolean mayRead() {
        final MqttConnection c = session.connection();
        return c != null && c.mayReadShared(coreTopic, group);
    }

    private void finished() {
        if (--outstanding == 0) {
            resume();
        }
    }
}
