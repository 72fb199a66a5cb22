package io.junction.spi.config;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * A front-end's view of the configuration: the keys under its prefix, validated, with defaults applied. Read values
 * at start and keep them in fields; this is not meant for hot paths.
 *
 * <p>Keys are named relative to the prefix: for the front-end {@code mqtt}, {@code intValue("max-inflight")} reads
 * {@code mqtt.max-inflight}.
 */
public final class FrontEndConfig {
    private final String prefix;
    private final Map<String, String> values;

    /**
     * @param prefix the front-end name
     * @param values every resolved key of the broker (full names); only those under the prefix are readable
     */
    public FrontEndConfig(final String prefix, final Map<String, String> values) {
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.values = Map.copyOf(values);
    }

    /** The front-end name this view is scoped to. */
    public String prefix() {
        return prefix;
    }

    /** {@code <prefix>.enabled}; true unless switched off. */
    public boolean enabled() {
        return !values.containsKey(prefix + ".enabled") || bool("enabled");
    }

    /** {@code <prefix>.port}. */
    public int port() {
        return ValueKind.parsePort(raw("port"));
    }

    public String string(final String key) {
        return raw(key);
    }

    public boolean bool(final String key) {
        return ValueKind.parseBoolean(raw(key));
    }

    public int intValue(final String key) {
        return ValueKind.parseInt(raw(key));
    }

    /** A {@link ValueKind#SIZE} or {@link ValueKind#INT_SIZE} in bytes. */
    public long size(final String key) {
        return ValueKind.parseSize(raw(key));
    }

    public double ratio(final String key) {
        return ValueKind.parseRatio(raw(key));
    }

    /** An {@link ValueKind#INT} key holding milliseconds (by convention named {@code *-ms}). */
    public Duration millis(final String key) {
        return Duration.ofMillis(intValue(key));
    }

    /** Whether {@code <prefix>.<key>} has a non-empty value. */
    public boolean isSet(final String key) {
        final String v = values.get(prefix + "." + key);
        return v != null && !v.isEmpty();
    }

    private String raw(final String key) {
        final String full = prefix + "." + key;
        final String v = values.get(full);
        if (v == null) {
            throw new IllegalArgumentException(full + " is not a declared configuration key");
        }
        return v;
    }
}
