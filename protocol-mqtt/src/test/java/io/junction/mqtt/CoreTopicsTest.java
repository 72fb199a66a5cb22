package io.junction.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CoreTopicsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "sensors/room1   | sensors",
        "sensors         | sensors",
        "a.b_c-d/x       | a.b_c-d",
        "$SYS/broker     | %24SYS",
        "café/x          | caf%C3%A9",
        "100%/x          | 100%25",
        "a b/c           | a%20b",
        "/x              | %",
        "./x             | %2E",
        "../x            | %2E%2E",
    })
    void shouldMapTheFirstLevelBothWays(final String mqttTopic, final String core) {
        assertThat(CoreTopics.coreTopicOf(mqttTopic.strip())).isEqualTo(core.strip());
        final String first = mqttTopic.strip().split("/", -1)[0];
        assertThat(CoreTopics.unescape(core.strip())).isEqualTo(first);
    }

    @org.junit.jupiter.api.Test
    void shouldKeepInternalTopicsAwayFromRootWildcards() {
        assertThat(CoreTopics.isInternal(CoreTopics.RETAINED)).isTrue();
        assertThat(CoreTopics.isInternal("%RETRY%group")).isTrue();
        assertThat(CoreTopics.isInternal("%KAFKA%TXN")).isTrue();
        assertThat(CoreTopics.isInternal("rmq_sys_wheel_timer")).isTrue();
        assertThat(CoreTopics.isInternal("sensors")).isFalse();
    }
}
