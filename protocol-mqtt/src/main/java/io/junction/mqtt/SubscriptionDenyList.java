package io.junction.mqtt;

import io.junction.spi.config.InvalidValueException;
import java.util.ArrayList;
import java.util.List;

/**
 * Topic filters nobody may subscribe to ({@code mqtt.deny-subscriptions}), whatever the ACL says: a broker-wide rule
 * such as "no subscription to all of {@code $SYS}" or "no bare {@code #}". A refused filter gets SUBACK 0x87 (MQTT 5)
 * or 0x80 (3.1.1) while the other filters of the same SUBSCRIBE are granted.
 *
 * <p>The setting is a comma-separated list. An entry {@code F} refuses every filter that {@code F} covers: {@code F}
 * itself and any narrower filter (under {@code $SYS/#}: {@code $SYS/#}, {@code $SYS/broker/+}, {@code $SYS/x}). An
 * entry {@code =F} refuses exactly the filter {@code F} ({@code =#} refuses {@code #} and still allows
 * {@code a/#}). Shared subscriptions are judged by their filter without the {@code $share/group/} prefix.
 */
final class SubscriptionDenyList {
    static final SubscriptionDenyList NONE = new SubscriptionDenyList(List.of(), List.of());

    private final List<TopicFilter> covering;
    private final List<String> exact;

    private SubscriptionDenyList(final List<TopicFilter> covering, final List<String> exact) {
        this.covering = covering;
        this.exact = exact;
    }

    /**
     * Parses the setting's value (empty: nothing denied).
     *
     * @throws InvalidValueException naming the entry that is not a topic filter
     */
    static SubscriptionDenyList parse(final String value) {
        if (value == null || value.isBlank()) {
            return NONE;
        }
        final List<TopicFilter> covering = new ArrayList<>();
        final List<String> exact = new ArrayList<>();
        for (String entry : value.split(",")) {
            final String e = entry.trim();
            final boolean isExact = e.startsWith("=");
            final String text = isExact ? e.substring(1) : e;
            final TopicFilter f = TopicFilter.parse(text);
            if (f == null || f.shared()) {
                throw new InvalidValueException("'" + e + "' is not a topic filter (nor =filter)");
            }
            if (isExact) {
                exact.add(text);
            } else {
                covering.add(f);
            }
        }
        return new SubscriptionDenyList(List.copyOf(covering), List.copyOf(exact));
    }

    /** Whether a subscription to {@code f} is refused. */
    boolean refuses(final TopicFilter f) {
        if (exact.contains(f.filter())) {
            return true;
        }
        for (TopicFilter deny : covering) {
            if (deny.covers(f)) {
                return true;
            }
        }
        return false;
    }
}
