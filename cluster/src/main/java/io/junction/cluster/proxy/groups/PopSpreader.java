package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POP of a topic whose queues are spread over store groups. Each group balances its own queues server-side; this
 * spreads over the groups: one quick pass (no waiting) through the groups holding the topic, starting at the next
 * group each call so none is favoured, taking up to the asked count in all; when that finds nothing and the caller
 * waits, one long poll on every group at once, the first answer with messages wins and the others are cancelled (a
 * message another group handed out meanwhile is given back at once, its delivery not counted). Each group's call
 * leaves alone the physical queues the scope holds there ({@link SeamHolds}). Receipts carry their group's name, so
 * acks go back to the group that issued them.
 */
final class PopSpreader {
    private static final Logger LOG = LoggerFactory.getLogger(PopSpreader.class);
    private final Function<String, Messaging> groups;
    private final Predicate<String> known;
    private final GroupConfigSync configs;
    private final ToIntFunction<String> ordinals;
    private final AtomicInteger rotation = new AtomicInteger();

    /**
     * @param known    whether a group is reached (a group forgotten since, with nothing readable left, is skipped)
     * @param ordinals each group's number: what two groups number alike (their retry queues, their log offsets) is
     *                 handed out apart ({@link GroupNumbering})
     */
    PopSpreader(final Function<String, Messaging> groups, final Predicate<String> known,
                final GroupConfigSync configs, final ToIntFunction<String> ordinals) {
        this.groups = groups;
        this.known = known;
        this.configs = configs;
        this.ordinals = ordinals;
    }

    CompletableFuture<PopResult> pop(final PopScope scope, final PopRequest request) {
        final TopicPlacement placement = scope.placement();
        final List<String> holding = placement.groups().stream().filter(known).toList();
        final int start = Math.floorMod(rotation.getAndIncrement(), holding.size());
        final List<String> order = new ArrayList<>(holding.subList(start, holding.size()));
        order.addAll(holding.subList(0, start));
        final Pass pass = new Pass(scope, request, order);
        pass.step(0);
        return pass.result;
    }

    /** One call's quick pass, then its long poll. */
    private final class Pass {
        final TopicPlacement placement;
        final PopScope scope;
        final PopRequest request;
        final List<String> order;
        final List<PoppedMessage> taken = new ArrayList<>();
        final List<String> answered = new ArrayList<>();
        final CompletableFuture<PopResult> result = new CompletableFuture<>();
        final List<CompletableFuture<PopResult>> inFlight = new ArrayList<>();
        Throwable firstFailure;

        Pass(final PopScope scope, final PopRequest request, final List<String> order) {
            this.placement = scope.placement();
            this.scope = scope;
            this.request = request;
            this.order = order;
            // A client that leaves cancels its pop: every group's wait is dropped (their messages go back at once).
            result.whenComplete((r, e) -> {
                if (result.isCancelled()) {
                    cancelInFlight();
                }
            });
        }

        private synchronized void cancelInFlight() {
            inFlight.forEach(f -> f.cancel(true));
        }

        private synchronized void track(final CompletableFuture<PopResult> call) {
            inFlight.add(call);
            if (result.isCancelled()) {
                call.cancel(true);
            }
        }

        void step(final int index) {
            final int remaining = request.maxMessages() - taken.size();
            if (result.isDone()) {
                return;
            }
            if (remaining <= 0 || index == order.size()) {
                finishQuickPass();
                return;
            }
            final String group = order.get(index);
            popFrom(group, remaining, 0).whenComplete((r, failure) -> {
                if (failure != null) {
                    if (firstFailure == null) {
                        firstFailure = failure;
                    }
                } else {
                    answered.add(group);
                    taken.addAll(r);
                }
                step(index + 1);
            });
        }

        private void finishQuickPass() {
            if (!taken.isEmpty() || (request.maxWaitMillis() <= 0 && !answered.isEmpty())) {
                result.complete(new PopResult(List.copyOf(taken)));
            } else if (answered.isEmpty()) {
                result.completeExceptionally(firstFailure);
            } else {
                longPoll();
            }
        }

        private void longPoll() {
            final AtomicInteger pending = new AtomicInteger(answered.size());
            final AtomicBoolean won = new AtomicBoolean();
            for (String group : answered) {
                popFrom(group, request.maxMessages(), request.maxWaitMillis()).whenComplete((r, failure) -> {
                    final boolean last = pending.decrementAndGet() == 0;
                    if (failure == null && !r.isEmpty()) {
                        if (won.compareAndSet(false, true) && result.complete(new PopResult(r))) {
                            cancelInFlight();
                        } else {
                            giveBack(group, r);
                        }
                    }
                    if (last) {
                        result.complete(new PopResult(List.of()));
                    }
                });
            }
        }

        private void giveBack(final String group, final List<PoppedMessage> messages) {
            for (PoppedMessage m : messages) {
                final GroupedReceipt receipt = (GroupedReceipt) m.receipt();
                groups.apply(group).giveBack(request.group(), receipt.inner().sealed()).whenComplete((v, e) -> {
                    if (e != null) {
                        LOG.debug("Giving back a message group {} handed out too late failed; it comes back after "
                                + "its invisible time", group, e);
                    }
                });
            }
        }

        private CompletableFuture<List<PoppedMessage>> popFrom(final String group, final int max, final long wait) {
            final PopRequest asked = new PopRequest(request.group(), request.topic(), request.filter(), max,
                    request.invisibleMillis(), wait, request.start(), scope.heldOn(group));
            return configs.ensure(group, request.group()).thenCompose(v -> {
                final CompletableFuture<PopResult> call = groups.apply(group).pop(asked);
                track(call);
                return call;
            }).thenApply(r -> {
                final List<PoppedMessage> out = new ArrayList<>(r.messages().size());
                final int ordinal = ordinals.applyAsInt(group);
                for (PoppedMessage m : r.messages()) {
                    out.add(new PoppedMessage(LogicalMessages.fromGroup(placement, group, ordinal, m.message()),
                            m.topic(), new GroupedReceipt(group, m.receipt()), m.reconsumeTimes()));
                }
                return out;
            });
        }
    }
}
