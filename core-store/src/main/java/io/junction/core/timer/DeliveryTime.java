package io.junction.core.timer;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.MessageProperties;
import java.time.Duration;
import java.util.Map;

/**
 * When a message asks to be delivered, from the properties the clients send.
 *
 * <p>Precedence, as RocketMQ 5's broker reads them: a 4.x delay level {@code DELAY} above 0 (1..18, see
 * {@link DelayLevels}) wins over the timer properties (the broker's retry back-off relies on that); then
 * {@code TIMER_DELAY_MS} (relative), {@code TIMER_DELAY_SEC} (relative), {@code TIMER_DELIVER_MS} (absolute epoch
 * ms). A value that is not a number (or beyond +-2^61) is refused; a relative delay below zero counts as zero.
 */
public final class DeliveryTime {
    /** "No deliver time": deliver at once. */
    public static final long NONE = Long.MIN_VALUE;

    private DeliveryTime() {
    }

    /**
     * The deliver-at time in epoch ms, or {@link #NONE} when the message carries none.
     *
     * @param now      the store clock
     * @param maxDelay the longest delay accepted
     * @throws StoreException ILLEGAL_ARGUMENT when a timer property is not a number or asks for a time more than
     *                        {@code maxDelay} after {@code now}
     */
    public static long resolve(final Map<String, String> properties, final long now, final Duration maxDelay) {
        final long at = requested(properties, now);
        if (at != NONE && at - now > maxDelay.toMillis()) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "deliver time " + at + " is "
                    + (at - now) + " ms away; the most accepted is " + maxDelay.toMillis() + " ms");
        }
        return at;
    }

    private static long requested(final Map<String, String> properties, final long now) {
        String v = properties.get(MessageProperties.DELAY_LEVEL);
        if (v != null) {
            final long level = number(MessageProperties.DELAY_LEVEL, v);
            if (level > 0) {
                return now + DelayLevels.delayMillis((int) Math.min(DelayLevels.MAX_LEVEL, level));
            }
        }
        v = properties.get(MessageProperties.DELAY_MS);
        if (v != null) {
            return now + Math.max(0, number(MessageProperties.DELAY_MS, v));
        }
        v = properties.get(MessageProperties.DELAY_SEC);
        if (v != null) {
            final long seconds = Math.max(0, number(MessageProperties.DELAY_SEC, v));
            return now + Math.min(seconds, Long.MAX_VALUE / 4000) * 1000;
        }
        v = properties.get(MessageProperties.DELIVER_AT);
        if (v != null) {
            return number(MessageProperties.DELIVER_AT, v);
        }
        return NONE;
    }

    private static long number(final String name, final String value) {
        try {
            final long n = Long.parseLong(value.trim());
            if (n > Long.MAX_VALUE / 4 || n < Long.MIN_VALUE / 4) {
                throw new NumberFormatException("out of range");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "property " + name + " = '" + value
                    + "' is not a valid number");
        }
    }
}
