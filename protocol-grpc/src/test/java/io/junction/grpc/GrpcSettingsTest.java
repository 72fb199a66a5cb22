package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.config.InvalidValueException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GrpcSettingsTest {

    private static FrontEndConfig config(final Map<String, String> set) {
        final Map<String, String> values = new HashMap<>();
        for (ConfigKey key : GrpcSettings.keys()) {
            values.put(key.name(), key.defaultValue());
        }
        values.putAll(set);
        return new FrontEndConfig(GrpcSettings.NAME, values);
    }

    @Test
    void shouldDefaultToTheProxysInvisibleDurationBounds() {
        final GrpcSettings s = GrpcSettings.from(config(Map.of()));
        assertThat(s.minInvisibleMillis()).isEqualTo(10_000);
        assertThat(s.maxInvisibleMillis()).isEqualTo(12 * 3_600_000L);
    }

    @Test
    void shouldAllowAMinimumDownToOneSecond() {
        final GrpcSettings s = GrpcSettings.from(config(Map.of("grpc.min-invisible-ms", "1000",
                "grpc.max-invisible-ms", "1000")));
        assertThat(s.minInvisibleMillis()).isEqualTo(1000);
        assertThat(s.maxInvisibleMillis()).isEqualTo(1000);
    }

    @Test
    void shouldRefuseBoundsOutOfRangeOrCrossed() {
        assertThatThrownBy(() -> GrpcSettings.from(config(Map.of("grpc.min-invisible-ms", "999"))))
                .isInstanceOf(InvalidValueException.class)
                .hasMessage("invalid value for grpc.min-invisible-ms: '999' is not at least 1000 (milliseconds)");
        assertThatThrownBy(() -> GrpcSettings.from(config(Map.of("grpc.min-invisible-ms", "5000",
                "grpc.max-invisible-ms", "4999"))))
                .isInstanceOf(InvalidValueException.class)
                .hasMessage("invalid value for grpc.max-invisible-ms: '4999' is below grpc.min-invisible-ms (5000)");
    }
}
