package io.junction.broker.config;

import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.config.ValueKind;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * The resolved configuration: every declared key with its validated, normalised value (defaults applied). Immutable;
 * read once at start and turned into the components' own settings.
 */
public final class BrokerConfig {
    private final Map<String, String> values;

    /** @param values every declared key's value, already validated by {@link ConfigLoader} */
    BrokerConfig(final Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    /** The value of a declared key, as validated text. */
    public String string(final ConfigKey key) {
        final String v = values.get(key.name());
        if (v == null) {
            throw new IllegalArgumentException(key.name() + " is not a declared configuration key");
        }
        return v;
    }

    public boolean bool(final ConfigKey key) {
        return ValueKind.parseBoolean(string(key));
    }

    public int intValue(final ConfigKey key) {
        return ValueKind.parseInt(string(key));
    }

    public int port(final ConfigKey key) {
        return ValueKind.parsePort(string(key));
    }

    /** A {@link ValueKind#INT_SIZE} in bytes. */
    public int intSize(final ConfigKey key) {
        return ValueKind.parseIntSize(string(key));
    }

    public double ratio(final ConfigKey key) {
        return ValueKind.parseRatio(string(key));
    }

    /** {@code data.dir} as an absolute path. */
    public Path dataDir() {
        return Path.of(string(ConfigKeys.DATA_DIR)).toAbsolutePath().normalize();
    }

    /** Whether the named front-end may start ({@code <name>.enabled}; true when the key is not declared). */
    public boolean frontEndEnabled(final String name) {
        final String v = values.get(name + ".enabled");
        return v == null || ValueKind.parseBoolean(v);
    }

    /** The named front-end's view of its keys. */
    public FrontEndConfig frontEnd(final String name) {
        Objects.requireNonNull(name, "name");
        return new FrontEndConfig(name, values);
    }

    /** Every key and value, for diagnostics. */
    public Map<String, String> asMap() {
        return values;
    }
}
