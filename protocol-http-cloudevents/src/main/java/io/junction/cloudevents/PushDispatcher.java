package io.junction.cloudevents;


import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.filter.MessageFilter;
import io.junction.spi.kit.HeldMessages;
import io.junction.tenancy.Action;
import io.junction.tenancy.Principal;
import io.junction.tenancy.ResourceKind;
import io.netty.util.concurrent.EventExecutor;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers one push subscription: pops its group (long polling), POSTs each event to the sink in binary mode with at
 * most {@code concurrency} deliveries in flight, retries retriable failures (timeouts, connection errors, 404, 408,
 * 409, 429, 5xx and unknown codes, as Knative does) with linear or exponential back-off, honouring Retry-After on 429
 * and 503, and then dead-letters: to the dead-letter sink with the extensions {@code knativeerrorcode},
 * {@code knativeerrordest} and {@code knativeerrordata}, or, without one (or when it fails too), to the group's DLQ
 * topic. A message is acked once it is delivered or dead-lettered; until then POP keeps it invisible (the visibility
 * is extended as retries need), so a broker restart redelivers it.
 *
 * <p>With security on it pushes only while the subscription's owner may read its topic and group under the rules in
 * force: asked before each pop and each attempt (decided again only when the policy version moved). While the owner
 * may not, nothing is popped, and an event popped or retrying meanwhile is given back to the group undelivered; pushing
 * resumes within {@value #PAUSE_MILLIS} ms of the rule being given back.
 */
final class PushDispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(PushDispatcher.class);
    private static final long POLL_WAIT_MILLIS = 5_000;
    private static final long ERROR_PAUSE_MILLIS = 1_000;
    private static final long MAX_RETRY_AFTER_MILLIS = 300_000;
    private static final long VISIBILITY_MARGIN_MILLIS = 30_000;
    /** How often a subscription whose owner may not read asks again (a version read until the rules change). */
    private static final long PAUSE_MILLIS = 500;

    private final Subscription subscription;
    private final MessageFilter filter;
    private final Messaging messaging;
    /** The deliveries in progress, settled, extended and given back by the front-end's one rule. */
    private final HeldMessages<PushDispatcher> held;
    private final SinkClient client;
    private final CloudEventMapping mapping;
    private final EventExecutor timer;
    private final int concurrency;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicBoolean polling = new AtomicBoolean();
    private volatile boolean stopped;
    private final Authorization authorization;
    /** The owner's last decision and the policy version it was made under ({@code -1}: none yet). */
    private volatile boolean ownerAllowed;
    private volatile long decidedAt = -1;

    PushDispatcher(final Subscription subscription, final Messaging messaging, final HeldMessages<PushDispatcher> held,
                   final SinkClient client, final CloudEventMapping mapping, final EventExecutor timer,
                   final int concurrency, final Authorization authorization) {
        this.held = held;
        this.authorization = authorization;
        this.subscription = subscription;
        this.filter = subscription.compiledFilter();
        this.messaging = messaging;
        this.client = client;
        this.mapping = mapping;
        this.timer = timer;
        this.concurrency = concurrency;
    }

    void start() {
        poll();
    }

    void stop() {
        stopped = true;
    }

    private void poll() {
        if (stopped) {
            return;
        }
        final int room = concurrency - inFlight.get();
        if (room <= 0 || !polling.compareAndSet(false, true)) {
            return;
        }
        if (!ownerMayRead()) {
            timer.schedule(() -> { // polling stays taken meanwhile: one pause at a time
                polling.set(false);
                poll();
            }, PAUSE_MILLIS, TimeUnit.MILLISECONDS);
            return;
        }
        final int max = Math.min(room, PopRequest.CLIENT_BATCH);
        messaging.pop(new PopRequest(subscription.name(), subscription.topic(), filter, max, initialVisibility(),
                POLL_WAIT_MILLIS)).whenComplete((result, e) -> {
                    polling.set(false);
                    if (e != null) {
                        if (!stopped) {
                            LOG.debug("pop for subscription {} failed", subscription.name(), e);
                            timer.schedule(this::poll, ERROR_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
                        }
                        return;
                    }
                    if (stopped) {
                        // Deleted or replaced: give back what was just popped so a replacement sees it at once.
                        held.giveBack(subscription.name(), result.messages());
                        return;
                    }
                    for (final PoppedMessage m : result.messages()) {
                        inFlight.incrementAndGet();
                        final Delivery d = new Delivery(m);
                        d.attempt();
                    }
                    poll();
                });
    }

    /**
     * Whether the owner may read the subscription's topic and group under the rules in force; remembered per policy
     * version, so a paused subscription counts one denial per change, not one per pause.
     */
    private boolean ownerMayRead() {
        final Principal owner = subscription.owner();
        if (owner == null) {
            return true;
        }
        final long version = authorization.policyVersion(); // before deciding: see AccessControl#policyVersion
        if (version != decidedAt) {
            ownerAllowed = authorization.allows(owner, ResourceKind.GROUP, subscription.name(), Action.SUB)
                    && authorization.allows(owner, ResourceKind.TOPIC, subscription.topic(), Action.SUB);
            decidedAt = version;
        }
        return ownerAllowed;
    }

    /** Long enough for every attempt and back-off of the delivery policy, plus a margin. */
    private long initialVisibility() {
        final Subscription.Delivery p = subscription.delivery();
        long total = VISIBILITY_MARGIN_MILLIS;
        for (int i = 0; i <= p.retries(); i++) {
            total += p.timeoutMillis() + (i < p.retries() ? p.backoff(i) : 0);
        }
        return Math.min(total, Subscription.MAX_VISIBILITY_SECONDS * 1000L);
    }

    /** One message's way to the sink. */
    private final class Delivery {
        private final PoppedMessage popped;
        private final CloudEvent event;
        private final long visibleFrom = System.currentTimeMillis();
        /** The handle the pop gave: what it is held under (an extension changes the core's handle, not this). */
        private final String receipt;
        private long invisibleUntil;
        private int attempts;

        Delivery(final PoppedMessage popped) {
            this.popped = popped;
            this.event = mapping.toEvent(popped.message(), popped.topic(), null);
            this.receipt = popped.receiptHandle();
            this.invisibleUntil = visibleFrom + initialVisibility();
            held.hold(PushDispatcher.this, subscription.name(), receipt, initialVisibility(), false);
        }

        void attempt() {
            if (stopped || !ownerMayRead()) {
                // retrying when the subscription stopped, or popped (or retrying) when the owner lost SUB: back to
                // the group undelivered at once, not counted as a failed delivery
                finish(held.giveBack(subscription.name(), receipt));
                return;
            }
            attempts++;
            client.post(subscription.sink(), event, subscription.delivery().timeoutMillis())
                    .whenComplete((outcome, e) -> {
                        if (e == null && outcome.success()) {
                            finish(held.ack(subscription.name(), receipt));
                            return;
                        }
                        final int status = e == null ? 0 : -1;
                        if (e == null && !retriable(outcome.status())) {
                            deadLetter(outcome.status(), outcome.body());
                            return;
                        }
                        if (attempts > subscription.delivery().retries()) {
                            deadLetter(e == null ? outcome.status() : status,
                                    e == null ? outcome.body() : String.valueOf(e.getMessage()));
                            return;
                        }
                        long delay = subscription.delivery().backoff(attempts - 1);
                        if (e == null && (outcome.status() == 429 || outcome.status() == 503)) {
                            delay = Math.max(delay, retryAfterMillis(outcome.retryAfter()));
                        }
                        retryIn(delay);
                    });
        }

        private void retryIn(final long delay) {
            final long needed = System.currentTimeMillis() + delay + subscription.delivery().timeoutMillis()
                    + VISIBILITY_MARGIN_MILLIS / 6;
            final CompletableFuture<Void> extended;
            if (needed > invisibleUntil) {
                final long more = delay + subscription.delivery().timeoutMillis() + VISIBILITY_MARGIN_MILLIS;
                extended = held.extend(subscription.name(), receipt, more).thenAccept(r ->
                        invisibleUntil = System.currentTimeMillis() + more);
            } else {
                extended = CompletableFuture.completedFuture(null);
            }
            extended.whenComplete((v, e) -> {
                if (e != null) {
                    LOG.debug("extending visibility for {} failed", subscription.name(), e);
                }
                if (stopped) {
                    finish(held.giveBack(subscription.name(), receipt));
                    return;
                }
                timer.schedule(this::attempt, delay, TimeUnit.MILLISECONDS);
            });
        }

        private void deadLetter(final int status, final String errorData) {
            final Subscription.Delivery p = subscription.delivery();
            if (p.deadLetterSink() != null) {
                final CloudEventBuilder b = CloudEventBuilder.v1(event)
                        .withExtension("knativeerrordest", subscription.sink().toString());
                if (status > 0) {
                    b.withExtension("knativeerrorcode", Integer.toString(status));
                }
                if (errorData != null && !errorData.isEmpty()) {
                    b.withExtension("knativeerrordata", errorData.length() > 1024 ? errorData.substring(0, 1024)
                            : errorData);
                }
                client.post(p.deadLetterSink(), b.build(), p.timeoutMillis()).whenComplete((o, e) -> {
                    if (e == null && o.success()) {
                        finish(held.ack(subscription.name(), receipt));
                    } else {
                        toDeadLetterTopic();
                    }
                });
                return;
            }
            toDeadLetterTopic();
        }

        /**
         * The core moves it to the subscription's DLQ topic: with its origin topic and id, without the delay it was
         * sent with (a dead letter must not wait for it again), and acknowledged.
         */
        private void toDeadLetterTopic() {
            finish(held.deadLetter(subscription.name(), receipt));
        }

        private void finish(final CompletableFuture<?> step) {
            step.whenComplete((v, e) -> {
                if (e != null) {
                    LOG.warn("subscription {}: could not settle a delivery (it will be redelivered)",
                            subscription.name(), e);
                }
                done();
            });
        }

        private void done() {
            inFlight.decrementAndGet();
            poll();
        }
    }

    /**
     * Knative: 400 and other 4xx are final, except 404, 409 and 429; 5xx and unknown codes are retried. 408 (the sink
     * timed the request out) is retried too, as a timeout of our own is.
     */
    static boolean retriable(final int status) {
        if (status >= 200 && status < 300) {
            return false;
        }
        if (status >= 400 && status < 500) {
            return status == 404 || status == 408 || status == 409 || status == 429;
        }
        return true;
    }

    /** Retry-After as delta-seconds or an HTTP date; 0 when absent or unreadable. */
    static long retryAfterMillis(final String header) {
        if (header == null || header.isBlank()) {
            return 0;
        }
        try {
            return Math.min(MAX_RETRY_AFTER_MILLIS, Math.max(0, Long.parseLong(header.trim()) * 1000));
        } catch (final NumberFormatException e) {
            try {
                final long at = ZonedDateTime.parse(header.trim(),
                        DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
                return Math.min(MAX_RETRY_AFTER_MILLIS, Math.max(0, at - System.currentTimeMillis()));
            } catch (final DateTimeParseException e2) {
                return 0;
            }
        }
    }
}
