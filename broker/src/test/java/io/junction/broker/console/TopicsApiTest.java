package io.junction.broker.console;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which topics the topics page hides unless asked: the broker's own, by their names. */
class TopicsApiTest {

    @ParameterizedTest
    @CsvSource({
        "orders, false",
        "sensors, false",
        "REPLY, false",
        "%RETRY%billing, true",
        "%DLQ%billing, true",
        "%MQTT%SESSIONS, true",
        "RMQ_SYS_TRACE_TOPIC, true",
        "RMQ_SYS_TRANS_HALF_TOPIC, true",
        "JunctionCluster_REPLY_TOPIC, true",
        "__consumer_offsets, true"})
    void shouldTellTheBrokersOwnTopicsFromClientTopics(final String topic, final boolean system) {
        assertThat(TopicsApi.isSystem(topic)).isEqualTo(system);
    }
}
