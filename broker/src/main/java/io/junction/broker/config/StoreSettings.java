package io.junction.broker.config;

import io.junction.core.engine.FlushMode;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.StoreObserver;
import java.net.InetSocketAddress;
import java.time.Duration;

/** Translates the {@code store.*} keys (and the advertised address) into the store's {@link StoreConfig}. */
public final class StoreSettings {

    /** The port written into offset message ids: the Remoting port, which clients use for everything else too. */
    private static final String ADVERTISED_PORT_KEY = "remoting.port";

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
                    .storeHost(storeHost)
                    .observer(observer)
                    .build();
        } catch (final IllegalArgumentException e) {
            throw new ConfigException("invalid store configuration: " + e.getMessage(), e);
        }
    }
}
