package io.junction.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.junction.core.RuntimeFigures;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class TrafficCountersTest {
    private static final ZoneId UTC = ZoneOffset.UTC;
    private static final long START = LocalDateTime.of(2025, 3, 1, 23, 50).toInstant(ZoneOffset.UTC).toEpochMilli();

    @Test
    void shouldReportRatesOverTenSecondsAMinuteAndTenMinutes() {
        final TrafficCounters t = new TrafficCounters(START, UTC);
        t.sample(START);
        // 600 seconds: 10 stored a second for the first 540, then 40 a second for the last 60
        for (int s = 1; s <= 600; s++) {
            t.stored(s <= 540 ? 10 : 40);
            t.sample(START + s * 1000L);
        }
        final RuntimeFigures.Rates rates = t.storedPerSecond();
        assertThat(rates.last10Seconds()).isCloseTo(40, within(0.001));
        assertThat(rates.lastMinute()).isCloseTo(40, within(0.001));
        assertThat(rates.last10Minutes()).isCloseTo((540 * 10 + 60 * 40) / 600.0, within(0.001));
        assertThat(t.storedTotals().now()).isEqualTo(540 * 10 + 60 * 40);
    }

    @Test
    void shouldReportTheRateSinceSamplingBeganWhenAWindowIsLongerThanThat() {
        final TrafficCounters t = new TrafficCounters(START, UTC);
        assertThat(t.storedPerSecond().lastMinute()).isZero();
        t.sample(START);
        t.stored(30);
        t.sample(START + 3000);
        assertThat(t.storedPerSecond().last10Minutes()).isCloseTo(10, within(0.001));
    }

    @Test
    void shouldCountReadsThatFoundMessagesAndReadsThatFoundNone() {
        final TrafficCounters t = new TrafficCounters(START, UTC);
        t.sample(START);
        t.read("g", "t", 5);
        t.read("g", "t", 0);
        t.read("g", "t", 0);
        t.sample(START + 1000);
        assertThat(t.handedOutTotals().now()).isEqualTo(5);
        assertThat(t.handedOutPerSecond().last10Seconds()).isCloseTo(5, within(0.001));
        assertThat(t.foundReadsPerSecond().last10Seconds()).isCloseTo(1, within(0.001));
        assertThat(t.missedReadsPerSecond().last10Seconds()).isCloseTo(2, within(0.001));
    }

    @Test
    void shouldRateAGroupsTopicOverTheLastMinuteAndForgetItWhenIdle() {
        final TrafficCounters t = new TrafficCounters(START, UTC);
        t.read("g", "t", 60);
        t.read("other", "t", 1);
        for (int s = 1; s <= 10; s++) {
            t.sample(START + s * 1000L);
        }
        // counted since the previous group sample (the start): 60 in 10 s
        assertThat(t.handedOutPerSecond("g", "t")).isCloseTo(6, within(0.001));
        assertThat(t.handedOutPerSecond("g", "u")).isZero();
        for (int s = 11; s <= 80; s++) {
            t.sample(START + s * 1000L);
        }
        assertThat(t.handedOutPerSecond("g", "t")).isZero();
        for (int s = 81; s <= 700; s++) {
            t.sample(START + s * 1000L);
        }
        t.read("g", "t", 20);
        t.sample(START + 710_000);
        assertThat(t.handedOutPerSecond("g", "t")).as("a forgotten counter starts afresh").isCloseTo(2,
                within(0.001));
    }

    @Test
    void shouldMarkTotalsAtTheStartOfEachDay() {
        final TrafficCounters t = new TrafficCounters(START, UTC);
        t.stored(7);
        t.read("g", "t", 3);
        t.sample(START + 60_000); // 23:51, same day
        assertThat(t.storedTotals()).isEqualTo(new RuntimeFigures.Totals(7, 0, 0));
        t.sample(START + 11 * 60_000); // 00:01 the next day
        t.stored(5);
        t.sample(START + 12 * 60_000);
        assertThat(t.storedTotals()).isEqualTo(new RuntimeFigures.Totals(12, 7, 0));
        assertThat(t.handedOutTotals()).isEqualTo(new RuntimeFigures.Totals(3, 3, 0));
        t.stored(1);
        t.sample(START + 24 * 3600_000L + 11 * 60_000); // the day after
        assertThat(t.storedTotals()).isEqualTo(new RuntimeFigures.Totals(13, 13, 7));
    }
}
