package io.junction.spi.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ConfigKeyTest {

    @Test
    void shouldParseSizesWithSuffixes() {
        assertThat(ValueKind.parseSize("4096")).isEqualTo(4096L);
        assertThat(ValueKind.parseSize("4k")).isEqualTo(4096L);
        assertThat(ValueKind.parseSize("64m")).isEqualTo(64L << 20);
        assertThat(ValueKind.parseSize("64MB")).isEqualTo(64L << 20);
        assertThat(ValueKind.parseSize(" 1g ")).isEqualTo(1L << 30);
        assertThat(ValueKind.parseSize("1G")).isEqualTo(1L << 30);
        assertThat(ValueKind.parseIntSize("1g")).isEqualTo(1 << 30);
    }

    @Test
    void shouldRefuseMalformedSizes() {
        for (final String bad : new String[] {"", "g", "1x", "-1", "1.5g", "1 g", "kb", "99999999999999999999"}) {
            assertThatThrownBy(() -> ValueKind.parseSize(bad)).as(bad).isInstanceOf(InvalidValueException.class);
        }
        assertThatThrownBy(() -> ValueKind.parseIntSize("2g"))
                .isInstanceOf(InvalidValueException.class)
                .hasMessageContaining("too large");
    }

    @Test
    void shouldRefuseAnythingButTrueOrFalse() {
        assertThat(ValueKind.parseBoolean("TRUE")).isTrue();
        assertThat(ValueKind.parseBoolean("false")).isFalse();
        assertThatThrownBy(() -> ValueKind.parseBoolean("yes")).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void shouldCheckPortsAndRatios() {
        assertThat(ValueKind.parsePort("0")).isZero();
        assertThat(ValueKind.parsePort("65535")).isEqualTo(65535);
        assertThatThrownBy(() -> ValueKind.parsePort("65536")).isInstanceOf(InvalidValueException.class);
        assertThat(ValueKind.parseRatio("0.75")).isEqualTo(0.75);
        assertThat(ValueKind.parseRatio("1")).isEqualTo(1.0);
        assertThatThrownBy(() -> ValueKind.parseRatio("0")).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> ValueKind.parseRatio("1.5")).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void shouldNormalizeChoicesAndNameTheKeyInErrors() {
        final ConfigKey mode = ConfigKey.choice("store.flush-mode", "ASYNC", "when a send counts", "ASYNC", "SYNC");

        assertThat(mode.normalize(" sync ")).isEqualTo("SYNC");
        assertThat(mode.expected()).isEqualTo("one of ASYNC, SYNC");
        assertThatThrownBy(() -> mode.normalize("sometimes"))
                .isInstanceOf(InvalidValueException.class)
                .hasMessageContaining("store.flush-mode")
                .hasMessageContaining("ASYNC, SYNC");
    }

    @Test
    void shouldRefuseAnInvalidDefault() {
        assertThatThrownBy(() -> ConfigKey.of("x.port", ValueKind.PORT, "http", "bad default"))
                .isInstanceOf(InvalidValueException.class);
    }
}
