package io.junction.broker.config;

import io.junction.core.engine.FlushMode;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.StoreObserver;
import io.junction.spi.config.ConfigKey;
import java.net.InetSocketAddress;
import java.time.Duration;

/** Translates the {@code store.*} keys (and the advertised address) into the store's {@link StoreConfig}. */
public final class StoreSettings {

    /** The port written into offset message ids: the Remoting port, which clients use for everything else too. */
    private static final String ADVERTISED_PORT_KEY = "remoting.port";
    /** Shortest transaction check delays: check-backs are looked for at most ten times a second. */
    static final int MIN_TRANSACTION_CHECK_MS = 100;
    static final int MIN_POP_REVIVE_INTERVAL_MS = 10;
    /** Longest revive interval: beyond it, a message's invisible time would mean little. */
    static final int MAX_POP_REVIVE_INTERVAL_MS = 60_000;

    private StoreSettings() {
    }

    /**
     * @throws ConfigException when the values are individually valid but do not fit together (e.g. a max message size
     *                         above half the segment size) or the advertised host does not resolve
     */
    public static StoreConfig toStoreConfig(final BrokerConfig config, final StoreObserver observer)
            throws ConfigException {
        final String host = config.string(ConfigKeys.BROKER_HOST);
        final int port = Integer.parseInt(config.asMap().getOrDefault(ADVERTISED_PORT_KEY, "9876"));
        final InetSocketAddress storeHost = new InetSocketAddress(host, port);
        if (storeHost.isUnresolved()) {
            throw new ConfigException("invalid value for " + ConfigKeys.BROKER_HOST.name() + ": '" + host
                    + "' does not resolve to an address");
        }
        try {
            return StoreConfig.builder(config.dataDir())
                    .segmentSize(config.intSize(ConfigKeys.SEGMENT_SIZE))
                    .mappedWindow(config.intSize(ConfigKeys.MAPPED_WINDOW))
                    .flushMode(FlushMode.valueOf(config.string(ConfigKeys.FLUSH_MODE)))
                    .flushInterval(Duration.ofMillis(config.intValue(ConfigKeys.FLUSH_INTERVAL_MS)))
                    .flushThresholdBytes(config.intSize(ConfigKeys.FLUSH_THRESHOLD))
                    .maxMessageSize(config.intSize(ConfigKeys.MAX_MESSAGE_SIZE))
                    .autoCreateTopics(config.bool(ConfigKeys.AUTO_CREATE_TOPICS))
                    .autoCreateGroups(config.bool(ConfigKeys.AUTO_CREATE_GROUPS))
                    .defaultQueueCount(config.intValue(ConfigKeys.DEFAULT_QUEUE_COUNT))
                    .retention(Duration.ofHours(config.intValue(ConfigKeys.RETENTION_HOURS)))
                    .maxDelay(Duration.ofHours(config.intValue(ConfigKeys.MAX_DELAY_HOURS)))
                    .maxDiskUsedRatio(config.ratio(ConfigKeys.DISK_MAX_USED_RATIO))
                    .diskFullRatio(config.ratio(ConfigKeys.DISK_FULL_RATIO))
                    .queueFileEntries(config.intValue(ConfigKeys.QUEUE_FILE_ENTRIES))
                    .indexFileEntries(config.intValue(ConfigKeys.INDEX_FILE_ENTRIES))
                    .transactionFirstCheck(millis(config, ConfigKeys.TRANSACTION_FIRST_CHECK_MS,
                            MIN_TRANSACTION_CHECK_MS, Integer.MAX_VALUE))
                    .transactionCheckInterval(millis(config, ConfigKeys.TRANSACTION_CHECK_INTERVAL_MS,
                            MIN_TRANSACTION_CHECK_MS, Integer.MAX_VALUE))
                    .transactionMaxChecks(config.intValue(ConfigKeys.TRANSACTION_MAX_CHECKS))
                    .popReviveInterval(millis(config, ConfigKeys.POP_REVIVE_INTERVAL_MS, MIN_POP_REVIVE_INTERVAL_MS,
                            MAX_POP_REVIVE_INTERVAL_MS))
                    .storeHost(storeHost)
                    .observer(observer)
                    .build();
        } catch (final IllegalArgumentException e) {
            throw new ConfigException("invalid store configuration: " + e.getMessage(), e);
        }
    }

    /** A milliseconds key whose value must lie in [min, max]. */
    private static Duration millis(final BrokerConfig config, final ConfigKey key, final int min, final int max)
            throws ConfigException {
        final int value = config.intValue(key);
        if (value < min || value > max) {
            throw new ConfigException("invalid value for " + key.name() + ": '" + value + "' is not "
                    + (max == Integer.MAX_VALUE ? "at least " + min : "between " + min + " and " + max)
                    + " (milliseconds)");
        }
        return Duration.ofMillis(value);
    }
}
