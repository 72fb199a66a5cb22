package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.Receipt;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Everything done with a popped message's receipt goes back to the store group that issued it: the receipt names it
 * ({@link GroupedReceipt}); one without a known group's name is the metadata group's. A new receipt a group returns
 * (invisible time changed, nacked) is wrapped as the one it replaces was. Acks of several receipts are split by group,
 * each group acking its own at once.
 */
final class ReceiptRouter {
    private final Map<String, Messaging> groups;
    private final String metadataGroup;
    private final Messaging metadata;

    ReceiptRouter(final Map<String, Messaging> groups) {
        this.groups = groups;
        this.metadataGroup = groups.keySet().iterator().next();
        this.metadata = groups.get(metadataGroup);
    }

    private GroupedReceipt.Routed routeOf(final String handle) {
        return GroupedReceipt.route(handle, groups.keySet());
    }

    private Messaging target(final GroupedReceipt.Routed routed) {
        return routed.group() == null ? metadata : groups.get(routed.group());
    }

    CompletableFuture<Void> ack(final String group, final String receiptHandle) {
        final GroupedReceipt.Routed routed = routeOf(receiptHandle);
        return target(routed).ack(group, routed.handle());
    }

    CompletableFuture<Void> ack(final String group, final List<String> receiptHandles) {
        final Map<String, List<String>> byGroup = new LinkedHashMap<>();
        for (String handle : receiptHandles) {
            final GroupedReceipt.Routed routed = routeOf(handle);
            byGroup.computeIfAbsent(routed.group() == null ? metadataGroup : routed.group(), g -> new ArrayList<>())
                    .add(routed.handle());
        }
        return allOrFirstFailure(byGroup, (name, handles) -> groups.get(name).ack(group, handles));
    }

    CompletableFuture<Void> ackReceipts(final String group, final List<? extends Receipt> receipts) {
        final Map<String, List<Receipt>> byGroup = new LinkedHashMap<>();
        for (Receipt receipt : receipts) {
            if (receipt instanceof GroupedReceipt grouped) {
                byGroup.computeIfAbsent(grouped.group(), g -> new ArrayList<>()).add(grouped.inner());
            } else {
                byGroup.computeIfAbsent(metadataGroup, g -> new ArrayList<>()).add(receipt);
            }
        }
        return allOrFirstFailure(byGroup, (name, rs) -> groups.get(name).ackReceipts(group, rs));
    }

    /** Every group's part is done; then fails with the first part's failure, if any (each valid one was acked). */
    private static <T> CompletableFuture<Void> allOrFirstFailure(
            final Map<String, T> parts, final BiFunction<String, T, CompletableFuture<Void>> call) {
        final List<CompletableFuture<Void>> calls = new ArrayList<>();
        parts.forEach((name, part) -> calls.add(call.apply(name, part)));
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).handle((v, e) -> {
            for (CompletableFuture<Void> c : calls) {
                if (c.isCompletedExceptionally()) {
                    return c;
                }
            }
            return CompletableFuture.<Void>completedFuture(null);
        }).thenCompose(Function.identity());
    }

    CompletableFuture<String> changeInvisibleTime(final String group, final String receiptHandle,
                                                         final long invisibleMillis) {
        final GroupedReceipt.Routed routed = routeOf(receiptHandle);
        return target(routed).changeInvisibleTime(group, routed.handle(), invisibleMillis).thenApply(routed::rewrap);
    }

    CompletableFuture<String> nack(final String group, final String receiptHandle) {
        final GroupedReceipt.Routed routed = routeOf(receiptHandle);
        return target(routed).nack(group, routed.handle()).thenApply(routed::rewrap);
    }

    CompletableFuture<Void> giveBack(final String group, final String receiptHandle) {
        final GroupedReceipt.Routed routed = routeOf(receiptHandle);
        return target(routed).giveBack(group, routed.handle());
    }

    CompletableFuture<Void> deadLetter(final String group, final String receiptHandle) {
        final GroupedReceipt.Routed routed = routeOf(receiptHandle);
        return target(routed).deadLetter(group, routed.handle());
    }

}
