package io.junction.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.StoreObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StoreSettingsTest {

    private final ConfigLoader loader = new ConfigLoader(ConfigKeys.broker());

    @Test
    void shouldDocumentTheStoresOwnDefaults() throws Exception {
        final BrokerConfig config = loader.load(null, Path.of("/tmp/junction-test"), Map.of());

        final StoreConfig fromKeys = StoreSettings.toStoreConfig(config, StoreObserver.NONE);
        final StoreConfig storeDefaults = StoreConfig.builder(Path.of("/tmp/junction-test"))
                .storeHost(fromKeys.storeHost()).build();

        // The README's defaults are the table's; they must be the store's own, not a second opinion.
        assertThat(fromKeys).isEqualTo(storeDefaults);
    }

    @Test
    void shouldMapEveryStoreKey() throws Exception {
        final BrokerConfig config = loader.load(null, Path.of("/tmp/junction-test"), Map.ofEntries(
                Map.entry("store.segment-size", "64m"),
                Map.entry("store.mapped-window", "32m"),
                Map.entry("store.flush-mode", "sync"),
                Map.entry("store.flush-interval-ms", "200"),
                Map.entry("store.flush-threshold", "1m"),
                Map.entry("store.max-message-size", "1m"),
                Map.entry("store.auto-create-topics", "false"),
                Map.entry("store.auto-create-groups", "false"),
                Map.entry("store.max-delay-hours", "12"),
                Map.entry("store.default-queue-count", "4"),
                Map.entry("store.retention-hours", "24"),
                Map.entry("store.disk-max-used-ratio", "0.5"),
                Map.entry("store.disk-full-ratio", "0.8"),
                Map.entry("store.queue-file-entries", "1000"),
                Map.entry("store.index-file-entries", "2000"),
                Map.entry("store.transaction-first-check-ms", "1500"),
                Map.entry("store.transaction-check-interval-ms", "2500"),
                Map.entry("store.transaction-max-checks", "3"),
                Map.entry("store.pop-revive-interval-ms", "50"),
                Map.entry("broker.host", "127.0.0.2"),
                Map.entry("remoting.port", "19876")));

        final StoreConfig store = StoreSettings.toStoreConfig(config, StoreObserver.NONE);

        assertThat(store.segmentSize()).isEqualTo(64 << 20);
        assertThat(store.mappedWindow()).isEqualTo(32 << 20);
        assertThat(store.flushMode().name()).isEqualTo("SYNC");
        assertThat(store.flushInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(store.flushThresholdBytes()).isEqualTo(1 << 20);
        assertThat(store.maxMessageSize()).isEqualTo(1 << 20);
        assertThat(store.autoCreateTopics()).isFalse();
        assertThat(store.autoCreateGroups()).isFalse();
        assertThat(store.maxDelay()).isEqualTo(Duration.ofHours(12));
        assertThat(store.defaultQueueCount()).isEqualTo(4);
        assertThat(store.retention()).isEqualTo(Duration.ofHours(24));
        assertThat(store.maxDiskUsedRatio()).isEqualTo(0.5);
        assertThat(store.diskFullRatio()).isEqualTo(0.8);
        assertThat(store.queueFileEntries()).isEqualTo(1000);
        assertThat(store.indexFileEntries()).isEqualTo(2000);
        assertThat(store.transactionFirstCheck()).isEqualTo(Duration.ofMillis(1500));
        assertThat(store.transactionCheckInterval()).isEqualTo(Duration.ofMillis(2500));
        assertThat(store.transactionMaxChecks()).isEqualTo(3);
        assertThat(store.popReviveInterval()).isEqualTo(Duration.ofMillis(50));
        assertThat(store.storeHost().getHostString()).isEqualTo("127.0.0.2");
        assertThat(store.storeHost().getPort()).isEqualTo(19876);
    }

    @ParameterizedTest
    @CsvSource({"store.transaction-first-check-ms, 99", "store.transaction-check-interval-ms, 0",
            "store.pop-revive-interval-ms, 9", "store.pop-revive-interval-ms, 60001"})
    void shouldRefuseTuningValuesOutOfRange(final String key, final String value) throws Exception {
        final BrokerConfig config = loader.load(null, null, Map.of(key, value));

        assertThatThrownBy(() -> StoreSettings.toStoreConfig(config, StoreObserver.NONE))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("invalid value for " + key + ": '" + value + "'");
    }

    @Test
    void shouldReportValuesThatDoNotFitTogether() throws Exception {
        final BrokerConfig config = loader.load(null, null, Map.of(
                "store.segment-size", "1m", "store.max-message-size", "4m"));

        assertThatThrownBy(() -> StoreSettings.toStoreConfig(config, StoreObserver.NONE))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("invalid store configuration: ")
                .hasMessageContaining("max message size");
    }
}
