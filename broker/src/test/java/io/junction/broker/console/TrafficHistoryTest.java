package io.junction.broker.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Rates from the registry's counters: per protocol (summed over their other labels) and per topic. */
class TrafficHistoryTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final TrafficHistory history = new TrafficHistory(registry);

    private Counter in(final String protocol, final String topic) {
        return Counter.builder("rocketmq_messages_in_total").tags("protocol", protocol, "topic", topic)
                .register(registry);
    }

    @Test
    void shouldTurnCounterDeltasIntoRatesPerProtocolAndPerTopic() {
        final Counter mqttA = in("mqtt", "a");
        final Counter mqttB = in("mqtt", "b");
        final Counter amqp = in("amqp", "a");
        final Counter topicA = Counter.builder("junction.messages.in").tag("topic", "a").register(registry);
        assertThat(history.protocolRates()).isEqualTo(TrafficHistory.Rates.NONE);

        history.sample(10_000);
        mqttA.increment(10);
        mqttB.increment(30);
        amqp.increment(4);
        topicA.increment(14);
        history.sample(12_000);

        assertThat(history.protocolRates().in()).isEqualTo(Map.of("mqtt", 20.0, "amqp", 2.0));
        assertThat(history.topicRates().in()).isEqualTo(Map.of("a", 7.0));
        final TrafficHistory.Series series = history.series();
        assertThat(series.times()).containsExactly(10_000L, 12_000L);
        assertThat(series.in()).isEqualTo(Map.of("amqp", List.of(0.0, 2.0), "mqtt", List.of(0.0, 20.0)));
    }

    @Test
    void shouldKeepABoundedHistoryAndStartNewProtocolsAtZero() {
        for (int i = 0; i < TrafficHistory.POINTS + 10; i++) {
            if (i == TrafficHistory.POINTS) {
                in("kafka", "k").increment(2);
            }
            history.sample(i * 1000L);
        }

        final TrafficHistory.Series series = history.series();
        assertThat(series.times()).hasSize(TrafficHistory.POINTS);
        // The oldest 10 samples were dropped; kafka's first messages show in the period they arrived in, 140 later.
        final List<Double> kafka = series.in().get("kafka");
        assertThat(kafka).hasSize(TrafficHistory.POINTS);
        assertThat(kafka.get(TrafficHistory.POINTS - 10)).isEqualTo(2.0);
        assertThat(kafka.stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(2.0);
        assertThat(history.connections()).isEmpty();
    }
}
