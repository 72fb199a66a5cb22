package io.junction.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.spi.BrokerContext;
import io.junction.spi.Endpoint;
import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.ValueKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    @TempDir
    Path dir;

    private final ConfigLoader loader = new ConfigLoader(ConfigKeys.broker());

    @Test
    void shouldApplyDefaultsWhenNothingIsSet() throws Exception {
        final BrokerConfig config = loader.load(null, null, Map.of());

        assertThat(config.intSize(ConfigKeys.SEGMENT_SIZE)).isEqualTo(1 << 30);
        assertThat(config.string(ConfigKeys.FLUSH_MODE)).isEqualTo("ASYNC");
        assertThat(config.port(ConfigKeys.HTTP_PORT)).isEqualTo(8080);
        assertThat(config.string(ConfigKeys.BROKER_HOST)).isEqualTo("127.0.0.1");
        assertThat(config.frontEnd("remoting").port()).isEqualTo(9876);
        assertThat(config.frontEnd("grpc").port()).isEqualTo(8081);
        assertThat(config.frontEnd("mqtt").port()).isEqualTo(1883);
        assertThat(config.frontEnd("amqp").port()).isEqualTo(5672);
        assertThat(config.frontEndEnabled("http-cloudevents")).isTrue();
        assertThat(config.dataDir()).isEqualTo(Path.of("data").toAbsolutePath());
    }

    @Test
    void shouldAcceptSizeSuffixes() throws Exception {
        final BrokerConfig config = loader.load(null, null, Map.of(
                "store.segment-size", "64m",
                "store.max-message-size", "4k",
                "http.max-request-size", "1G"));

        assertThat(config.intSize(ConfigKeys.SEGMENT_SIZE)).isEqualTo(64 << 20);
        assertThat(config.intSize(ConfigKeys.MAX_MESSAGE_SIZE)).isEqualTo(4096);
        assertThat(config.intSize(ConfigKeys.HTTP_MAX_REQUEST_SIZE)).isEqualTo(1 << 30);
    }

    @Test
    void shouldNameAnUnknownKeyAndItsSource() throws IOException {
        assertThatThrownBy(() -> loader.load(null, null, Map.of("store.segmnet-size", "1g")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("unknown configuration key 'store.segmnet-size' (from --set); see --help for the keys");

        final Path file = write("broker.properties", "http.port=8080\nmqtt.prot=1883\n");
        assertThatThrownBy(() -> loader.load(file, null, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("'mqtt.prot'")
                .hasMessageContaining(file.toString());
    }

    @Test
    void shouldRefuseMalformedValuesNamingTheKey() {
        assertThatThrownBy(() -> loader.load(null, null, Map.of("store.flush-mode", "sometimes")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("store.flush-mode")
                .hasMessageContaining("ASYNC, SYNC");
        assertThatThrownBy(() -> loader.load(null, null, Map.of("http.port", "eighty")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("http.port");
        assertThatThrownBy(() -> loader.load(null, null, Map.of("store.segment-size", "3g")))
                .isInstanceOf(ConfigException.class);
    }

    @Test
    void shouldLetSetWinOverDataDirWinOverFileWinOverDefaults() throws Exception {
        final Path file = write("broker.properties",
                "store.flush-mode=SYNC\nhttp.port=9000\ndata.dir=/from/file\nmqtt.port=2000\n");

        final Map<String, String> overrides = new LinkedHashMap<>();
        overrides.put("http.port", "9100");
        final BrokerConfig fileAndSet = loader.load(file, null, overrides);
        assertThat(fileAndSet.string(ConfigKeys.FLUSH_MODE)).isEqualTo("SYNC"); // file over default
        assertThat(fileAndSet.port(ConfigKeys.HTTP_PORT)).isEqualTo(9100); // --set over file
        assertThat(fileAndSet.frontEnd("mqtt").port()).isEqualTo(2000);
        assertThat(fileAndSet.dataDir()).isEqualTo(Path.of("/from/file"));

        final BrokerConfig withDataDir = loader.load(file, Path.of("/from/flag"), Map.of());
        assertThat(withDataDir.dataDir()).isEqualTo(Path.of("/from/flag")); // --data-dir over file

        final BrokerConfig all = loader.load(file, Path.of("/from/flag"), Map.of("data.dir", "/from/set"));
        assertThat(all.dataDir()).isEqualTo(Path.of("/from/set")); // --set over --data-dir
    }

    @Test
    void shouldReportAMissingConfigFile() {
        assertThatThrownBy(() -> loader.load(dir.resolve("absent.properties"), null, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("absent.properties")
                .hasMessageContaining("no such file");
    }

    @Test
    void shouldAcceptKeysDeclaredByDiscoveredFrontEnds() throws Exception {
        final ProtocolFrontEnd stomp = new DeclaringFrontEnd("stomp",
                List.of(ConfigKey.of("stomp.port", ValueKind.PORT, "61613", "Port."),
                        ConfigKey.of("mqtt.port", ValueKind.PORT, "1", "Ignored: the broker's entry wins.")));
        assertThatThrownBy(() -> ConfigKeys.withFrontEnds(List.of(stomp)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("outside its prefix");

        final ProtocolFrontEnd wellBehaved = new DeclaringFrontEnd("stomp",
                List.of(ConfigKey.of("stomp.port", ValueKind.PORT, "61613", "Port.")));
        final BrokerConfig config = new ConfigLoader(ConfigKeys.withFrontEnds(List.of(wellBehaved)))
                .load(null, null, Map.of("stomp.enabled", "false"));

        assertThat(config.frontEnd("stomp").port()).isEqualTo(61613);
        assertThat(config.frontEndEnabled("stomp")).isFalse();
    }

    private Path write(final String name, final String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    private record DeclaringFrontEnd(String name, List<ConfigKey> configKeys) implements ProtocolFrontEnd {
        @Override
        public CompletableFuture<List<Endpoint>> start(final BrokerContext context) {
            return CompletableFuture.completedFuture(List.of());
        }

        @Override
        public CompletableFuture<Void> stop() {
            return CompletableFuture.completedFuture(null);
        }
    }
}
