package io.junction.amqp;

import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.PopRequest;
import io.junction.core.message.StoredMessage;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Sender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue browser's link (source distribution mode {@code copy}, as Qpid JMS opens one for a {@code QueueBrowser}):
 * enumerates, as far as the link's credit goes, exactly the messages a consumer of the queue with the same selector
 * would get next, oldest first per queue, without taking them or counting a delivery. Deliveries go out settled. A
 * drain request is answered once the enumeration has reached the end of the queue (how the client knows it is
 * complete); messages arriving later are listed when the client asks for more.
 */
final class BrowserLink implements LinkHandler {
    private static final Logger LOG = LoggerFactory.getLogger(BrowserLink.class);

    private final Endpoints endpoints;
    private final Sender sender;
    private final ConsumerPlan plan;
    private final DeliveryTags tags = new DeliveryTags();
    /** Where the enumeration goes on in each queue; null before the first browse. */
    private long[] positions;
    private boolean browsing;
    private boolean ended;

    BrowserLink(final Endpoints endpoints, final Sender sender, final ConsumerPlan plan) {
        this.endpoints = endpoints;
        this.sender = sender;
        this.plan = plan;
    }

    @Override
    public void onFlow() {
        if (ended || browsing || sender.getCredit() <= 0) {
            return;
        }
        browsing = true;
        endpoints.broker().messaging().browse(new BrowseRequest(plan.group(), plan.topic(), plan.filter(), positions,
                        Math.min(PopRequest.MAX_MESSAGES, sender.getCredit())))
                .whenCompleteAsync(this::browsed, endpoints.connection().executor());
    }

    private void browsed(final BrowseResult result, final Throwable error) {
        browsing = false;
        if (ended) {
            return;
        }
        if (error != null) {
            LOG.debug("Browsing {} failed", plan.topic(), error);
            endpoints.endLink(sender, AmqpErrors.of(AmqpErrors.INTERNAL, "browsing failed: " + error.getMessage()));
            return;
        }
        positions = result.positions();
        final long now = System.currentTimeMillis();
        for (StoredMessage m : result.messages()) {
            final long expiresAt = AmqpMessageMapping.expiresAt(m.properties());
            if (expiresAt > 0 && expiresAt <= now) {
                continue; // a consumer would not get it either
            }
            final GrowableBuffer out = endpoints.encodeBuffer();
            endpoints.mapping().toAmqp(m, plan.address(), m.reconsumeTimes(), out);
            final Delivery d = sender.delivery(tags.next());
            sender.send(out.array(), 0, out.position());
            d.settle();
            sender.advance();
        }
        if (!result.messages().isEmpty() || !result.end()) {
            onFlow(); // more to look at while credit lasts
        } else if (sender.getDrain() && sender.getCredit() > 0) {
            sender.drained(); // the whole queue was enumerated
        }
        endpoints.connection().requestFlush();
    }

    @Override
    public void onDelivery(final Delivery delivery) {
        if (delivery.remotelySettled()) {
            delivery.settle(); // browsed messages are settled when sent; nothing to do with an outcome
        }
    }

    @Override
    public void onEnd(final boolean closed) {
        ended = true;
    }

    /** For logging. */
    @Override
    public String toString() {
        return "browser " + plan;
    }
}
