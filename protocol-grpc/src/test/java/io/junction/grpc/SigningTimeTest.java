package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

class SigningTimeTest {
    private static final Instant NOW = Instant.parse("2025-03-01T12:00:00Z");

    /** The header a 5.x client in {@code zone} writes at {@code at}: local wall-clock time with a literal Z. */
    private static String header(final Instant at, final ZoneId zone) {
        return DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(zone).format(at);
    }

    @Test
    void shouldFindAUtcClientsHeaderFromThirteenHoursAgoAnHourTooOld() {
        // no zone is 13 h west of UTC: the nearest reading (UTC-12) is still an hour in the past
        final Instant signedAt = SigningTime.of(header(NOW.minus(Duration.ofHours(13)), ZoneOffset.UTC), NOW);
        assertThat(Duration.between(signedAt, NOW)).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void shouldPlaceAHeaderOfAnyRealZoneAtTheBrokersClock() {
        for (String zone : new String[] {"Pacific/Kiritimati", "Etc/GMT+12", "Asia/Kathmandu", "America/St_Johns",
                "Asia/Shanghai", "America/Los_Angeles", "Pacific/Chatham"}) {
            assertThat(SigningTime.of(header(NOW, ZoneId.of(zone)), NOW)).as(zone).isEqualTo(NOW);
        }
    }

    @Test
    void shouldKeepAClientClocksOwnSkewVisibleBeyondTheZones() {
        // a UTC+14 client 20 minutes ahead: its header lies 20 minutes beyond what any zone explains
        final Instant signedAt = SigningTime.of(header(NOW.plus(Duration.ofMinutes(20)),
                ZoneId.of("Pacific/Kiritimati")), NOW);
        assertThat(Duration.between(NOW, signedAt)).isEqualTo(Duration.ofMinutes(20));
    }

    @Test
    void shouldLeaveAHeaderFromDaysAgoDaysAway() {
        final Instant signedAt = SigningTime.of(header(NOW.minus(Duration.ofDays(3)), ZoneOffset.UTC), NOW);
        assertThat(Duration.between(signedAt, NOW)).isEqualTo(Duration.ofDays(3).minusHours(12));
    }

    @Test
    void shouldAcceptAReplayForAtMostTwentySixHoursPlusSkewAfterSigning() {
        // the longest window: a UTC+14 client's header, replayed later
        final String h = header(NOW, ZoneId.of("Pacific/Kiritimati"));
        assertThat(SigningTime.of(h, NOW.plus(Duration.ofHours(26)))).isEqualTo(NOW.plus(Duration.ofHours(26)));
        assertThat(Duration.between(SigningTime.of(h, NOW.plus(Duration.ofHours(27))),
                NOW.plus(Duration.ofHours(27)))).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void shouldRefuseWhatIsNotADateOfThatForm() {
        assertThat(SigningTime.of(null, NOW)).isNull();
        assertThat(SigningTime.of("", NOW)).isNull();
        assertThat(SigningTime.of("20250301T120000", NOW)).isNull();
        assertThat(SigningTime.of("20250231T120000Z", NOW)).isNull();
        assertThat(SigningTime.of("2025-03-01T12:00Z", NOW)).isNull();
        assertThat(SigningTime.of("20250301T250000Z", NOW)).isNull();
    }
}
