package io.junction.core.stats;

/**
 * Samples of an ever-growing total, one per tick, in a ring: the rate over a recent window is the growth between the
 * newest sample and the one taken a window earlier. Thread-safe; ticks are rare (one a second or slower).
 */
final class RateWindow {
    private final long[] times;
    private final long[] totals;
    private int newest = -1;
    private int count;

    /** @param capacity samples kept: the longest window asked for, in ticks, plus one */
    RateWindow(final int capacity) {
        this.times = new long[capacity];
        this.totals = new long[capacity];
    }

    synchronized void add(final long time, final long total) {
        newest = (newest + 1) % times.length;
        times[newest] = time;
        totals[newest] = total;
        count = Math.min(count + 1, times.length);
    }

    /**
     * Growth per second between the newest sample and the newest one at least {@code windowMillis} older (the oldest
     * kept when none is that old: the rate since sampling began); 0 with fewer than two samples.
     */
    synchronized double perSecond(final long windowMillis) {
        if (count < 2) {
            return 0;
        }
        final long end = times[newest];
        int from = newest;
        for (int i = 1; i < count; i++) {
            from = Math.floorMod(newest - i, times.length);
            if (end - times[from] >= windowMillis) {
                break;
            }
        }
        final long elapsed = end - times[from];
        return elapsed <= 0 ? 0 : (totals[newest] - totals[from]) * 1000.0 / elapsed;
    }

    /** The newest total sampled, or 0 before the first sample. */
    synchronized long latest() {
        return count == 0 ? 0 : totals[newest];
    }
}
