package io.junction.core.stats;

import io.junction.core.RuntimeFigures;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts messages stored and handed to consumers, and reads that found messages or none; {@link #sample} (once a
 * second) turns the counts into rates over the last 10 seconds, minute and 10 minutes, per consumer group and topic
 * over the last minute, and daily totals. Counting is a few adds on the send and read paths; everything else happens
 * when sampling or when asked.
 */
public final class TrafficCounters {
    private static final long TEN_SECONDS = 10_000;
    private static final long MINUTE = 60_000;
    private static final long TEN_MINUTES = 600_000;
    /** One sample a second, for the longest window. */
    private static final int SECOND_SAMPLES = 601;
    /** Group rates are sampled every 10 s: 7 samples span the minute they are reported over. */
    private static final long GROUP_SAMPLE_MILLIS = 10_000;
    private static final int GROUP_SAMPLES = 7;
    /** A group and topic with nothing handed out for this long is forgotten. */
    private static final long GROUP_IDLE_MILLIS = 600_000;

    /** A consumer group reading a topic. */
    private record GroupTopic(String group, String topic) {
    }

    private static final class GroupCounter {
        final LongAdder handedOut = new LongAdder();
        final RateWindow window = new RateWindow(GROUP_SAMPLES);
        long lastChange;
        long lastTotal = -1;
    }

    private final ZoneId zone;
    private final LongAdder stored = new LongAdder();
    private final LongAdder handedOut = new LongAdder();
    private final LongAdder readsFound = new LongAdder();
    private final LongAdder readsMissed = new LongAdder();
    private final RateWindow storedRate = new RateWindow(SECOND_SAMPLES);
    private final RateWindow handedOutRate = new RateWindow(SECOND_SAMPLES);
    private final RateWindow foundRate = new RateWindow(SECOND_SAMPLES);
    private final RateWindow missedRate = new RateWindow(SECOND_SAMPLES);
    private final DailyTotals storedDaily;
    private final DailyTotals handedOutDaily;
    private final Map<GroupTopic, GroupCounter> groups = new ConcurrentHashMap<>();
    private long lastGroupSample;

    public TrafficCounters(final long startMillis, final ZoneId zone) {
        this.zone = zone;
        final LocalDate today = day(startMillis);
        this.storedDaily = new DailyTotals(today);
        this.handedOutDaily = new DailyTotals(today);
        this.lastGroupSample = startMillis;
    }

    /** {@code count} messages were stored. */
    public void stored(final int count) {
        stored.add(count);
    }

    /** A read for {@code group} on {@code topic} handed out {@code count} messages (0: it found none). */
    public void read(final String group, final String topic, final int count) {
        if (count <= 0) {
            readsMissed.increment();
            return;
        }
        readsFound.increment();
        handedOut.add(count);
        if (group != null && topic != null) {
            groups.computeIfAbsent(new GroupTopic(group, topic), k -> new GroupCounter()).handedOut.add(count);
        }
    }

    /** Takes this second's sample; the store calls it once a second. */
    public synchronized void sample(final long nowMillis) {
        final long storedNow = stored.sum();
        final long handedOutNow = handedOut.sum();
        storedRate.add(nowMillis, storedNow);
        handedOutRate.add(nowMillis, handedOutNow);
        foundRate.add(nowMillis, readsFound.sum());
        missedRate.add(nowMillis, readsMissed.sum());
        final LocalDate today = day(nowMillis);
        storedDaily.roll(today, storedNow);
        handedOutDaily.roll(today, handedOutNow);
        if (nowMillis - lastGroupSample >= GROUP_SAMPLE_MILLIS) {
            sampleGroups(lastGroupSample, nowMillis);
            lastGroupSample = nowMillis;
        }
    }

    private void sampleGroups(final long previousMillis, final long nowMillis) {
        for (Iterator<GroupCounter> it = groups.values().iterator(); it.hasNext();) {
            final GroupCounter c = it.next();
            final long total = c.handedOut.sum();
            if (c.lastTotal < 0) {
                // Counted since the previous sample: its rate starts there, from nothing.
                c.window.add(previousMillis, 0);
            }
            if (total != c.lastTotal) {
                c.lastTotal = total;
                c.lastChange = nowMillis;
            } else if (nowMillis - c.lastChange > GROUP_IDLE_MILLIS) {
                it.remove();
                continue;
            }
            c.window.add(nowMillis, total);
        }
    }

    /** Messages stored per second. */
    public RuntimeFigures.Rates storedPerSecond() {
        return rates(storedRate);
    }

    /** Messages handed to consumers per second. */
    public RuntimeFigures.Rates handedOutPerSecond() {
        return rates(handedOutRate);
    }

    /** Reads that found messages, per second. */
    public RuntimeFigures.Rates foundReadsPerSecond() {
        return rates(foundRate);
    }

    /** Reads that found none, per second. */
    public RuntimeFigures.Rates missedReadsPerSecond() {
        return rates(missedRate);
    }

    /** Messages handed to {@code group}'s consumers of {@code topic} per second over the last minute. */
    public double handedOutPerSecond(final String group, final String topic) {
        final GroupCounter c = groups.get(new GroupTopic(group, topic));
        return c == null ? 0 : c.window.perSecond(MINUTE);
    }

    /** Messages stored since the start. */
    public RuntimeFigures.Totals storedTotals() {
        return new RuntimeFigures.Totals(stored.sum(), storedDaily.todayMorning(), storedDaily.yesterdayMorning());
    }

    /** Messages handed to consumers since the start. */
    public RuntimeFigures.Totals handedOutTotals() {
        return new RuntimeFigures.Totals(handedOut.sum(), handedOutDaily.todayMorning(),
                handedOutDaily.yesterdayMorning());
    }

    private static RuntimeFigures.Rates rates(final RateWindow window) {
        return new RuntimeFigures.Rates(window.perSecond(TEN_SECONDS), window.perSecond(MINUTE),
                window.perSecond(TEN_MINUTES));
    }

    private LocalDate day(final long millis) {
        return LocalDate.ofInstant(Instant.ofEpochMilli(millis), zone);
    }
}
