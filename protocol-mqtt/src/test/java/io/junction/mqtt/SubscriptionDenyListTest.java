package io.junction.mqtt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.spi.config.InvalidValueException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SubscriptionDenyListTest {
    private final SubscriptionDenyList denied = SubscriptionDenyList.parse(" $SYS/# , =#, secret/+ ");

    @ParameterizedTest(name = "{0} refused = {1}")
    @CsvSource({
        "$SYS/#, true",
        "$SYS/broker/load, true",
        "#, true",
        "a/#, false",
        "+/#, false",
        "secret/x, true",
        "secret/+, true",
        "secret/#, false",
        "$share/g/secret/x, true",
        "$share/g/#, true",
        "sensors/room1, false",
    })
    void shouldRefuseCoveredAndExactFilters(final String filter, final boolean refused) {
        assertThat(denied.refuses(TopicFilter.parse(filter))).isEqualTo(refused);
    }

    @Test
    void shouldDenyNothingWhenEmpty() {
        assertThat(SubscriptionDenyList.parse("").refuses(TopicFilter.parse("#"))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"a/#/b", "=", "ok/#, bad#", "$share/g/a"})
    void shouldRefuseASettingThatIsNotAListOfFilters(final String value) {
        assertThatThrownBy(() -> SubscriptionDenyList.parse(value)).isInstanceOf(InvalidValueException.class);
    }
}
