package io.junction.broker.config;

import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.InvalidValueException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Resolves the configuration from its sources, later ones winning: the declared defaults, the properties file
 * ({@code --config}), {@code --data-dir}, then each {@code --set key=value}. Every value is validated against its
 * key's kind and an unknown key is an error, wherever it comes from: a typo must not be silently ignored.
 */
public final class ConfigLoader {
    private final Map<String, ConfigKey> keys = new LinkedHashMap<>();

    /** @param keys every key that may be set */
    public ConfigLoader(final List<ConfigKey> keys) {
        keys.forEach(k -> this.keys.put(k.name(), k));
    }

    /**
     * @param configFile a Java properties file, or null
     * @param dataDir    the {@code --data-dir} value, or null
     * @param overrides  the {@code --set} pairs in command-line order
     * @throws ConfigException naming the offending key, value and source
     */
    public BrokerConfig load(final Path configFile, final Path dataDir, final Map<String, String> overrides)
            throws ConfigException {
        final Map<String, String> values = new LinkedHashMap<>();
        keys.values().forEach(k -> values.put(k.name(), k.defaultValue()));
        if (configFile != null) {
            // Sorted so that, with several bad keys, the reported one does not depend on hash order.
            final Map<String, String> fromFile = new TreeMap<>(readProperties(configFile));
            apply(values, fromFile, "in " + configFile);
        }
        if (dataDir != null) {
            apply(values, Map.of(ConfigKeys.DATA_DIR.name(), dataDir.toString()), "from --data-dir");
        }
        apply(values, overrides, "from --set");
        return new BrokerConfig(values);
    }

    private void apply(final Map<String, String> values, final Map<String, String> source, final String origin)
            throws ConfigException {
        for (final Map.Entry<String, String> e : source.entrySet()) {
            final String name = e.getKey().trim();
            final ConfigKey key = keys.get(name);
            if (key == null) {
                throw new ConfigException("unknown configuration key '" + name + "' (" + origin
                        + "); see --help for the keys");
            }
            try {
                values.put(name, key.normalize(e.getValue()));
            } catch (final InvalidValueException ex) {
                throw new ConfigException(ex.getMessage() + " (" + origin + ")");
            }
        }
    }

    private static Map<String, String> readProperties(final Path file) throws ConfigException {
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (final IOException | IllegalArgumentException e) {
            throw new ConfigException("cannot read configuration file " + file + ": " + describe(e), e);
        }
        final Map<String, String> result = new LinkedHashMap<>();
        properties.stringPropertyNames().forEach(n -> result.put(n, properties.getProperty(n)));
        return result;
    }

    private static String describe(final Exception e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
