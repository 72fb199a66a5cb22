package io.junction.core.timer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.MessageProperties;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class DeliveryTimeTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final Duration DAY = Duration.ofHours(24);

    @ParameterizedTest(name = "level {0} -> {1} ms")
    @CsvSource({
        "1, 1000", "2, 5000", "3, 10000", "4, 30000",
        "5, 60000", "6, 120000", "7, 180000", "8, 240000", "9, 300000", "10, 360000", "11, 420000",
        "12, 480000", "13, 540000", "14, 600000", "15, 1200000", "16, 1800000", "17, 3600000", "18, 7200000",
        "19, 7200000", "1000, 7200000",
    })
    void shouldMapDelayLevelsOntoDeliverTimes(final int level, final long delayMillis) {
        assertThat(DelayLevels.delayMillis(level)).isEqualTo(delayMillis);
        assertThat(DeliveryTime.resolve(Map.of(MessageProperties.DELAY_LEVEL, Integer.toString(level)), NOW, DAY))
                .isEqualTo(NOW + delayMillis);
    }

    @ParameterizedTest(name = "{0}={1} -> now + {2}")
    @CsvSource({
        "TIMER_DELAY_MS, 1500, 1500",
        "TIMER_DELAY_MS, -5, 0",
        "TIMER_DELAY_SEC, 90, 90000",
        "TIMER_DELIVER_MS, 1700000000123, 123",
        "TIMER_DELIVER_MS, 1699999999000, -1000",
    })
    void shouldReadRocketMq5TimerProperties(final String name, final String value, final long offset) {
        assertThat(DeliveryTime.resolve(Map.of(name, value), NOW, DAY)).isEqualTo(NOW + offset);
    }

    @Test
    void shouldTreatLevelZeroOrNoPropertyAsNoDeliverTime() {
        assertThat(DeliveryTime.resolve(Map.of(), NOW, DAY)).isEqualTo(DeliveryTime.NONE);
        assertThat(DeliveryTime.resolve(Map.of(MessageProperties.DELAY_LEVEL, "0"), NOW, DAY))
                .isEqualTo(DeliveryTime.NONE);
        assertThat(DeliveryTime.resolve(Map.of(MessageProperties.DELAY_LEVEL, "-3"), NOW, DAY))
                .isEqualTo(DeliveryTime.NONE);
    }

    @Test
    void shouldPreferTheLevelThenRelativeThenAbsolute() {
        assertThat(DeliveryTime.resolve(Map.of(MessageProperties.DELAY_LEVEL, "2",
                MessageProperties.DELAY_MS, "7", MessageProperties.DELIVER_AT, "5"), NOW, DAY)).isEqualTo(NOW + 5000);
        assertThat(DeliveryTime.resolve(Map.of(MessageProperties.DELAY_MS, "7", MessageProperties.DELAY_SEC, "9",
                MessageProperties.DELIVER_AT, "5"), NOW, DAY)).isEqualTo(NOW + 7);
        assertThat(DeliveryTime.resolve(Map.of(MessageProperties.DELAY_SEC, "9",
                MessageProperties.DELIVER_AT, "5"), NOW, DAY)).isEqualTo(NOW + 9000);
    }

    @Test
    void shouldRefuseDelaysBeyondTheMaximumAndGarbage() {
        assertThat(DeliveryTime.resolve(Map.of(MessageProperties.DELAY_MS, Long.toString(DAY.toMillis())), NOW, DAY))
                .isEqualTo(NOW + DAY.toMillis());
        for (Map<String, String> bad : List.of(
            Map.of(MessageProperties.DELAY_MS, Long.toString(DAY.toMillis() + 1)),
            Map.of(MessageProperties.DELAY_SEC, "86401"),
            Map.of(MessageProperties.DELAY_SEC, Long.toString(Long.MAX_VALUE / 8)),
            Map.of(MessageProperties.DELIVER_AT, Long.toString(NOW + DAY.toMillis() + 1)),
            Map.of(MessageProperties.DELIVER_AT, "soon"),
            Map.of(MessageProperties.DELAY_LEVEL, "x"),
            Map.of(MessageProperties.DELAY_MS, Long.toString(Long.MAX_VALUE)))) {
            assertThatThrownBy(() -> DeliveryTime.resolve(bad, NOW, DAY)).as(bad.toString())
                    .isInstanceOf(StoreException.class)
                    .extracting(e -> ((StoreException) e).error()).isEqualTo(StoreError.ILLEGAL_ARGUMENT);
        }
        assertThatThrownBy(() -> DeliveryTime.resolve(Map.of(MessageProperties.DELAY_LEVEL, "18"), NOW,
                Duration.ofHours(1))).isInstanceOf(StoreException.class);
    }
}
