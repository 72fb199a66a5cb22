package io.junction.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TopicFilterTest {

    @ParameterizedTest(name = "{0} ~ {1} = {2}")
    @CsvSource({
        "sensors/#, sensors, true",
        "sensors/#, sensors/room1, true",
        "sensors/#, sensors/room1/temp, true",
        "sensors/+, sensors/room1, true",
        "sensors/+, sensors/room1/temp, false",
        "sensors/+, sensors, false",
        "sensors/+/temp, sensors/room1/temp, true",
        "sensors/+/temp, sensors/room1/hum, false",
        "#, sensors/room1, true",
        "#, $SYS/broker, false",
        "+/broker, $SYS/broker, false",
        "$SYS/#, $SYS/broker, true",
        "a/b, a/b, true",
        "a/b, a/bc, false",
        "a/b, a, false",
        "+, a, true",
        "+, a/b, false",
        "+/+, /x, true",
        "a/+, a/, true",
        "/#, /x, true",
    })
    void shouldMatchLikeTheSpec(final String filter, final String topic, final boolean matches) {
        assertThat(TopicFilter.parse(filter).matches(topic)).isEqualTo(matches);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a/#/b", "a#", "a/b+", "#/a", "$share/g", "$share//a", "$share/g+/a", ""})
    void shouldRejectMalformedFilters(final String filter) {
        assertThat(TopicFilter.parse(filter)).isNull();
    }

    @org.junit.jupiter.api.Test
    void shouldSplitSharedSubscriptions() {
        final TopicFilter f = TopicFilter.parse("$share/workers/jobs/+");
        assertThat(f.shareGroup()).isEqualTo("workers");
        assertThat(f.filter()).isEqualTo("jobs/+");
        assertThat(f.coreTopic()).isEqualTo("jobs");
        assertThat(f.matches("jobs/1")).isTrue();
        assertThat(TopicFilter.parse("#").coreTopic()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"a/+", "a/#", "", "+"})
    void shouldRejectWildcardsInTopicNames(final String topic) {
        assertThat(TopicFilter.isValidTopicName(topic)).isFalse();
    }

    @ParameterizedTest(name = "{0} covers {1} = {2}")
    @CsvSource({
        "#, a/b, true",
        "#, #, true",
        "#, $SYS/x, false",
        "+/#, $SYS/#, false",
        "$SYS/#, $SYS/#, true",
        "$SYS/#, $SYS/broker/+, true",
        "$SYS/#, $SYS, true",
        "$SYS/#, #, false",
        "$SYS/#, +/broker, false",
        "a/+, a/b, true",
        "a/+, a/+, true",
        "a/+, a/#, false",
        "a/+, a/b/c, false",
        "a/+, a, false",
        "a/b, a/+, false",
        "a/b, a/b, true",
        "a/#, a, true",
        "+/b, x/b, true",
    })
    void shouldCoverExactlyTheFiltersWhoseTopicsItMatches(final String filter, final String other,
                                                          final boolean covers) {
        assertThat(TopicFilter.parse(filter).covers(TopicFilter.parse(other))).isEqualTo(covers);
    }
}
