package io.junction.grpc;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;

/**
 * When a 5.x client says it signed a request: its {@code x-mq-date-time} header.
 *
 * <p>The client formats that header with {@code SimpleDateFormat("yyyyMMdd'T'HHmmss'Z'")} in its JVM's default time
 * zone (verified in rocketmq-client-java 5.0.8, {@code Signature}): despite the {@code Z}, it is the client's local
 * wall-clock time, and the zone is not sent. The header can therefore stand for any instant between
 * {@code local − 14 h} (a UTC+14 client) and {@code local + 12 h} (a UTC−12 client). This takes the instant of that
 * range nearest to the broker's clock, so a client in any real zone whose clock is right is exact, and the access
 * policy's skew check ({@code security.max-skew-seconds}) measures how far the header lies outside the range.
 *
 * <p>The price, stated plainly: a captured header (with its signature) is accepted from when it was made until the
 * broker's clock passes {@code local + 12 h + max-skew}, i.e. up to 26 h plus the skew for a UTC+14 client and the skew
 * alone for a UTC−12 one; a signature from days ago is refused as expired. The signature covers only this header, not
 * the request, so that replay window is the scheme's (TLS is what keeps headers from being captured).
 */
final class SigningTime {
    /** Farthest a real zone is east of UTC (Line Islands). */
    static final Duration EASTMOST = Duration.ofHours(14);
    /** Farthest a real zone is west of UTC (Baker Island). */
    static final Duration WESTMOST = Duration.ofHours(12);

    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'")
            .withResolverStyle(ResolverStyle.STRICT);

    private SigningTime() {
    }

    /**
     * The instant the header most plausibly stands for, given the broker's {@code now}; null when the header is not
     * a date of that form.
     */
    static Instant of(final String header, final Instant now) {
        if (header == null || header.length() != 16) {
            return null;
        }
        final Instant local;
        try {
            local = LocalDateTime.parse(header, FORMAT).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            return null;
        }
        final Instant earliest = local.minus(EASTMOST);
        final Instant latest = local.plus(WESTMOST);
        if (now.isBefore(earliest)) {
            return earliest;
        }
        return now.isAfter(latest) ? latest : now;
    }
}
