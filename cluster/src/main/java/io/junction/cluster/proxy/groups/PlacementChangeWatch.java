package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a long-polling POP when its topic's placement changes. A POP waits on the groups the placement named when it
 * began (the metadata group for a topic with none); once scaling moves the topic's writes to another group, new
 * messages land where it does not wait, and a consumer caught up with the old segments would wait out its whole long
 * poll (20 s and more for some front-ends) with messages ready. So while it waits the placement is looked at every
 * {@value #CHECK_MILLIS} ms (the mirror, in memory: this proxy's own scaling shows at once, another proxy's within a
 * mirror refresh); when it differs, the POP answers empty at once (as a long poll that found nothing) and the parked
 * calls are cancelled, which gives back to their groups what they were taking. The front-end's next POP follows the
 * new placement. A message a parked call handed out after that answer is given back at once, uncounted.
 *
 * <p>Likewise when the queues a FIFO or in-place consumer group's POP was holding ({@link SeamHolds}) change: the old
 * segment is done, the next one's messages are the group's to take, and the POP waiting elsewhere ends so the next
 * one takes them.
 */
final class PlacementChangeWatch {
    static final long CHECK_MILLIS = 200;
    private static final Executor LATER = CompletableFuture.delayedExecutor(CHECK_MILLIS, TimeUnit.MILLISECONDS);
    private static final Logger LOG = LoggerFactory.getLogger(PlacementChangeWatch.class);

    private final Function<PopRequest, PopScope> scopes;
    private final Messaging messaging;

    /**
     * @param scopes    a POP's scope now
     * @param messaging where late messages are given back (receipts route themselves to their group)
     */
    PlacementChangeWatch(final Function<PopRequest, PopScope> scopes, final Messaging messaging) {
        this.scopes = scopes;
        this.messaging = messaging;
    }

    /**
     * {@code pop}'s answer, or an empty one as soon as the POP's scope (its topic's placement, the queues it holds)
     * is no longer {@code began}. Cancelling the answer cancels the POP.
     */
    CompletableFuture<PopResult> endOnChange(final PopRequest request, final PopScope began,
                                             final Function<PopScope, CompletableFuture<PopResult>> pop) {
        final String consumerGroup = request.group();
        final CompletableFuture<PopResult> call = pop.apply(began);
        final CompletableFuture<PopResult> answer = new CompletableFuture<>();
        call.whenComplete((r, e) -> {
            if (e != null) {
                answer.completeExceptionally(e);
            } else if (!answer.complete(r)) {
                giveBack(consumerGroup, r.messages());
            }
        });
        answer.whenComplete((r, e) -> {
            if (!call.isDone()) {
                call.cancel(true);
            }
        });
        check(request, began, answer);
        return answer;
    }

    private void check(final PopRequest request, final PopScope began, final CompletableFuture<PopResult> answer) {
        LATER.execute(() -> {
            if (answer.isDone()) {
                return;
            }
            final PopScope now = scopes.apply(request);
            if (changed(began.placement(), now.placement()) || !began.held().equals(now.held())) {
                answer.complete(new PopResult(List.of()));
            } else {
                check(request, began, answer);
            }
        });
    }

    private static boolean changed(final TopicPlacement began, final TopicPlacement now) {
        if (began == null || now == null) {
            return began != now;
        }
        return began != now && !began.format().equals(now.format());
    }

    private void giveBack(final String consumerGroup, final List<PoppedMessage> late) {
        for (PoppedMessage m : late) {
            messaging.giveBack(consumerGroup, m.receiptHandle()).whenComplete((v, e) -> {
                if (e != null) {
                    LOG.debug("Giving back a message handed out after its POP ended failed; it comes back after its "
                            + "invisible time", e);
                }
            });
        }
    }
}
