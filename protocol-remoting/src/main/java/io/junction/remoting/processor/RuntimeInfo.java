package io.junction.remoting.processor;

import io.junction.core.RuntimeFigures;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.spi.BuildVersion;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * GET_BROKER_RUNTIME_INFO's table ({@code mqadmin brokerStatus}, {@code clusterList}) from the core's figures, under
 * the keys RocketMQ 5.3 brokers use. Figures Junction has no counterpart for (thread-pool queues, page-cache lock,
 * timer backlog) are left out rather than made up; the admin tools print them as empty.
 */
final class RuntimeInfo {
    private RuntimeInfo() {
    }

    /** The table as of {@code now}. */
    static Map<String, String> table(final RuntimeFigures f, final long now) {
        final Map<String, String> t = new LinkedHashMap<>();
        t.put("brokerVersionDesc", BuildVersion.current());
        // The RocketMQ protocol version this broker speaks (what it puts in every response).
        t.put("brokerVersion", Integer.toString(RemotingCommand.SERVER_VERSION));
        t.put("brokerActive", "true");
        t.put("bootTimestamp", Long.toString(f.bootTimestamp()));
        t.put("runtime", uptime(Duration.ofMillis(Math.max(0, now - f.bootTimestamp()))));
        t.put("putTps", rates(f.stored()));
        t.put("getTransferredTps", rates(f.handedOut()));
        t.put("getFoundTps", rates(f.readsFound()));
        t.put("getMissTps", rates(f.readsMissed()));
        t.put("getTotalTps", rates(new RuntimeFigures.Rates(
                f.readsFound().last10Seconds() + f.readsMissed().last10Seconds(),
                f.readsFound().lastMinute() + f.readsMissed().lastMinute(),
                f.readsFound().last10Minutes() + f.readsMissed().last10Minutes())));
        t.put("msgPutTotalTodayNow", Long.toString(f.storedTotals().now()));
        t.put("msgPutTotalTodayMorning", Long.toString(f.storedTotals().todayMorning()));
        t.put("msgPutTotalYesterdayMorning", Long.toString(f.storedTotals().yesterdayMorning()));
        t.put("msgGetTotalTodayNow", Long.toString(f.handedOutTotals().now()));
        t.put("msgGetTotalTodayMorning", Long.toString(f.handedOutTotals().todayMorning()));
        t.put("msgGetTotalYesterdayMorning", Long.toString(f.handedOutTotals().yesterdayMorning()));
        t.put("commitLogMinOffset", Long.toString(f.logMinOffset()));
        t.put("commitLogMaxOffset", Long.toString(f.logMaxOffset()));
        t.put("dispatchBehindBytes", Long.toString(f.dispatchBehindBytes()));
        t.put("remainHowManyDataToFlush", Long.toString(f.unflushedBytes()));
        if (f.diskUsedRatio() >= 0) {
            t.put("commitLogDiskRatio", Double.toString(f.diskUsedRatio()));
        }
        if (f.earliestMessageTime() >= 0) {
            t.put("earliestMessageTimeStamp", Long.toString(f.earliestMessageTime()));
        }
        return t;
    }

    /** Three rates, as RocketMQ writes them: over the last 10 seconds, minute and 10 minutes. */
    private static String rates(final RuntimeFigures.Rates r) {
        return String.format(Locale.ROOT, "%.2f %.2f %.2f", r.last10Seconds(), r.lastMinute(), r.last10Minutes());
    }

    /** {@code [ 1 days, 2 hours, 3 minutes, 4 seconds ]}, RocketMQ's format. */
    static String uptime(final Duration d) {
        return String.format(Locale.ROOT, "[ %d days, %d hours, %d minutes, %d seconds ]", d.toDays(),
                d.toHoursPart(), d.toMinutesPart(), d.toSecondsPart());
    }
}
