package io.junction.spi.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FrontEndConfigTest {

    private final FrontEndConfig mqtt = new FrontEndConfig("mqtt", Map.of(
            "mqtt.enabled", "true",
            "mqtt.port", "1883",
            "mqtt.max-packet-size", "256k",
            "mqtt.keep-alive-ms", "45000",
            "amqp.port", "5672"));

    @Test
    void shouldReadTypedValuesRelativeToThePrefix() {
        assertThat(mqtt.enabled()).isTrue();
        assertThat(mqtt.port()).isEqualTo(1883);
        assertThat(mqtt.size("max-packet-size")).isEqualTo(256 * 1024L);
        assertThat(mqtt.millis("keep-alive-ms")).isEqualTo(Duration.ofSeconds(45));
        assertThat(mqtt.isSet("max-packet-size")).isTrue();
    }

    @Test
    void shouldNotSeeOtherFrontEndsKeys() {
        assertThatThrownBy(() -> mqtt.string("amqp.port")).isInstanceOf(IllegalArgumentException.class);
        assertThat(mqtt.isSet("nothing")).isFalse();
    }

    @Test
    void shouldBeEnabledUnlessSwitchedOff() {
        assertThat(new FrontEndConfig("grpc", Map.of()).enabled()).isTrue();
        assertThat(new FrontEndConfig("grpc", Map.of("grpc.enabled", "false")).enabled()).isFalse();
    }
}
