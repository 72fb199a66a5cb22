package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import io.junction.core.RuntimeFigures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Runtime figures over every store group a proxy reaches: traffic rates and totals, unflushed and undispatched bytes
 * summed; commit-log offsets summed too (each group's log is its own, so the sums' difference is what all logs hold);
 * the earliest start and oldest message; the fullest disk. Consume rates are the metadata group's (a proxy reads
 * none: they are counted where messages are handed out, and the contract reads them synchronously).
 */
final class GroupedStatistics implements Messaging.Statistics {
    private final Map<String, Messaging> groups;
    private final Messaging metadata;

    GroupedStatistics(final Map<String, Messaging> groups, final Messaging metadata) {
        this.groups = groups;
        this.metadata = metadata;
    }

    @Override
    public CompletableFuture<RuntimeFigures> runtime() {
        final List<CompletableFuture<RuntimeFigures>> figures = new ArrayList<>();
        groups.values().forEach(g -> figures.add(g.statistics().runtime()));
        return CompletableFuture.allOf(figures.toArray(CompletableFuture[]::new)).thenApply(v -> figures.stream()
                .map(CompletableFuture::join).reduce(GroupedStatistics::sum).orElseThrow());
    }

    @Override
    public double consumeTps(final String group, final String topic) {
        return metadata.statistics().consumeTps(group, topic);
    }

    static RuntimeFigures sum(final RuntimeFigures a, final RuntimeFigures b) {
        return new RuntimeFigures(Math.min(a.bootTimestamp(), b.bootTimestamp()), sum(a.stored(), b.stored()),
                sum(a.handedOut(), b.handedOut()), sum(a.readsFound(), b.readsFound()),
                sum(a.readsMissed(), b.readsMissed()), sum(a.storedTotals(), b.storedTotals()),
                sum(a.handedOutTotals(), b.handedOutTotals()), a.logMinOffset() + b.logMinOffset(),
                a.logMaxOffset() + b.logMaxOffset(), a.dispatchBehindBytes() + b.dispatchBehindBytes(),
                a.unflushedBytes() + b.unflushedBytes(), Math.max(a.diskUsedRatio(), b.diskUsedRatio()),
                earliest(a.earliestMessageTime(), b.earliestMessageTime()));
    }

    private static RuntimeFigures.Rates sum(final RuntimeFigures.Rates a, final RuntimeFigures.Rates b) {
        return new RuntimeFigures.Rates(a.last10Seconds() + b.last10Seconds(), a.lastMinute() + b.lastMinute(),
                a.last10Minutes() + b.last10Minutes());
    }

    private static RuntimeFigures.Totals sum(final RuntimeFigures.Totals a, final RuntimeFigures.Totals b) {
        return new RuntimeFigures.Totals(a.now() + b.now(), a.todayMorning() + b.todayMorning(),
                a.yesterdayMorning() + b.yesterdayMorning());
    }

    /** The earlier of two store times, -1 meaning an empty log. */
    private static long earliest(final long a, final long b) {
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }
}
