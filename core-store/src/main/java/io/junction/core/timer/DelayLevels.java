package io.junction.core.timer;

/**
 * RocketMQ's fixed delay levels ({@code DELAY} property, 1..18), mapped onto the timer: level n waits
 * {@code 1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h}[n - 1].
 *
 * <p>As in RocketMQ's broker, a level of 0 or below means "no delay" and a level above 18 is treated as 18.
 */
public final class DelayLevels {
    /** The highest level. */
    public static final int MAX_LEVEL = 18;

    private static final long SECOND = 1000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long HOUR = 60 * MINUTE;
    private static final long[] DELAYS = {
        SECOND, 5 * SECOND, 10 * SECOND, 30 * SECOND,
        MINUTE, 2 * MINUTE, 3 * MINUTE, 4 * MINUTE, 5 * MINUTE, 6 * MINUTE, 7 * MINUTE, 8 * MINUTE, 9 * MINUTE,
        10 * MINUTE, 20 * MINUTE, 30 * MINUTE,
        HOUR, 2 * HOUR,
    };

    private DelayLevels() {
    }

    /** The delay of {@code level} in milliseconds; 0 for a level of 0 or below, level 18's for one above 18. */
    public static long delayMillis(final int level) {
        if (level <= 0) {
            return 0;
        }
        return DELAYS[Math.min(level, MAX_LEVEL) - 1];
    }
}
