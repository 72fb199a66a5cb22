package io.junction.core.pop;

import io.junction.core.meta.GroupConfig;

/**
 * A group's back-off ladder (its retry and dead-letter topics are named by {@code SystemNames}).
 *
 * <p>Default ladder (RocketMQ's): 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h; a group may set its own
 * with the attribute {@code retry.backoff} (space-separated durations like {@code 1s 5s 1m 2h}).
 */
public final class RetryPolicy {
    /** Group attribute holding a custom back-off ladder. */
    public static final String BACKOFF_ATTRIBUTE = "retry.backoff";
    private static final long[] DEFAULT_LADDER = parse("10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h");

    private RetryPolicy() {
    }

    /** The back-off before delivery number {@code reconsumeTimes + 1}. */
    public static long backoffMillis(final GroupConfig group, final int reconsumeTimes) {
        long[] ladder = DEFAULT_LADDER;
        final String custom = group == null ? null : group.attributes().get(BACKOFF_ATTRIBUTE);
        if (custom != null) {
            try {
                ladder = parse(custom);
            } catch (IllegalArgumentException e) {
                ladder = DEFAULT_LADDER;
            }
        }
        return ladder[Math.min(Math.max(reconsumeTimes, 0), ladder.length - 1)];
    }

    /** Parses a ladder such as {@code "1s 30s 2m 1h"}. */
    public static long[] parse(final String ladder) {
        final String[] parts = ladder.trim().split("\\s+");
        final long[] millis = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            final String p = parts[i];
            final char unit = p.charAt(p.length() - 1);
            final long n = Long.parseLong(p.substring(0, p.length() - 1));
            millis[i] = switch (unit) {
                case 's' -> n * 1000;
                case 'm' -> n * 60_000;
                case 'h' -> n * 3_600_000;
                case 'd' -> n * 86_400_000;
                default -> throw new IllegalArgumentException("unit of " + p);
            };
        }
        if (millis.length == 0) {
            throw new IllegalArgumentException("empty ladder");
        }
        return millis;
    }
}
