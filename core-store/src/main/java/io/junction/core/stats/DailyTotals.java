package io.junction.core.stats;

import java.time.LocalDate;

/**
 * An ever-growing total and its value at the start of today and of yesterday (local time), as RocketMQ reports
 * {@code msgPutTotalTodayMorning} and {@code msgPutTotalYesterdayMorning}: today's count is now minus this morning,
 * yesterday's is this morning minus yesterday morning. Both marks are 0 until the first midnight after the start.
 */
final class DailyTotals {
    private LocalDate day;
    private long todayMorning;
    private long yesterdayMorning;

    DailyTotals(final LocalDate startDay) {
        this.day = startDay;
    }

    /** Moves the marks when {@code today} is a new day; {@code total} is the count as of now. */
    synchronized void roll(final LocalDate today, final long total) {
        if (today.isAfter(day)) {
            yesterdayMorning = today.minusDays(1).equals(day) ? todayMorning : total;
            todayMorning = total;
            day = today;
        }
    }

    synchronized long todayMorning() {
        return todayMorning;
    }

    synchronized long yesterdayMorning() {
        return yesterdayMorning;
    }
}
