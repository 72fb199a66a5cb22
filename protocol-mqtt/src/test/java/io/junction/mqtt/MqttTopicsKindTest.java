package io.junction.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.filter.FilterSpec;
import io.junction.core.filter.InvalidFilterException;
import io.junction.core.filter.MessageFilter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A session's topic filters, described and compiled again (as the leader does for a follower's read). */
class MqttTopicsKindTest {

    @Test
    void shouldCompileTheSameTopicMatchFromItsDescription() {
        final List<TopicFilter> filters = List.of(TopicFilter.parse("$share/w/sensors/+/temp"),
                TopicFilter.parse("alerts/#"));
        final FilterSpec spec = MqttTopicsKind.spec("sensors", filters);
        assertThat(spec).isEqualTo(new FilterSpec.Extension(MqttTopicsKind.NAME,
                List.of("sensors", "$share/w/sensors/+/temp", "alerts/#")));
        final MessageFilter again = spec.compile();
        assertThat(again.matches(Map.of(MqttMessageMapping.TOPIC, "sensors/k1/temp"))).isTrue();
        assertThat(again.matches(Map.of(MqttMessageMapping.TOPIC, "sensors/k1/humidity"))).isFalse();
        assertThat(again.matches(Map.of(MqttMessageMapping.TOPIC, "alerts/fire/now"))).isTrue();
        assertThat(again.matches(Map.of(MqttMessageMapping.TOPIC, "$SYS/alerts"))).isFalse();
        // A message of another protocol carries no MQTT topic: it is matched under the fallback topic.
        assertThat(again.matches(Map.of())).isFalse();
        assertThat(MqttTopicsKind.spec("alerts", filters).compile().matches(Map.of())).isTrue();
        for (Map<String, String> m : List.of(Map.of(MqttMessageMapping.TOPIC, "sensors/a/temp"),
                Map.of(MqttMessageMapping.TOPIC, "other"), Map.<String, String>of())) {
            assertThat(again.matches(m)).isEqualTo(MqttTopicsKind.matches(filters, "sensors", m));
        }
        assertThat(again.spec()).isEqualTo(spec);
    }

    @Test
    void shouldRefuseArgumentsThatAreNotTopicFilters() {
        assertThatThrownBy(() -> new FilterSpec.Extension(MqttTopicsKind.NAME, List.of()).compile())
                .isInstanceOf(InvalidFilterException.class);
        assertThatThrownBy(() -> new FilterSpec.Extension(MqttTopicsKind.NAME, List.of("t", "a/#/b")).compile())
                .isInstanceOf(InvalidFilterException.class);
    }
}
