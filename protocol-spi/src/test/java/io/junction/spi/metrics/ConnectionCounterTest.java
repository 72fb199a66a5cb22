package io.junction.spi.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class ConnectionCounterTest {

    @Test
    void shouldCountActiveChannelsAndExportGauge() {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final ConnectionCounter counter = new ConnectionCounter(registry, "mqtt");

        final EmbeddedChannel first = new EmbeddedChannel(counter.handler());
        final EmbeddedChannel second = new EmbeddedChannel(counter.handler());
        assertThat(counter.current()).isEqualTo(2);
        assertThat(registry.get("junction.connections").tag("protocol", "mqtt").gauge().value()).isEqualTo(2.0);

        first.close();
        second.finishAndReleaseAll();
        assertThat(counter.current()).isZero();
        assertThat(registry.get("junction.connections").tag("protocol", "mqtt").gauge().value()).isZero();
    }
}
