package io.junction.core;

/**
 * The broker's traffic and store figures as of now, for admin tools (RocketMQ's broker runtime info). Traffic is
 * counted since the store started; "handed out" counts messages that reads (pulls and pops) returned to consumers.
 *
 * @param bootTimestamp       when the store started (epoch ms)
 * @param stored              messages stored per second
 * @param handedOut           messages handed out per second
 * @param readsFound          reads that returned messages, per second
 * @param readsMissed         reads that found none, per second
 * @param storedTotals        messages stored since the start
 * @param handedOutTotals     messages handed out since the start
 * @param logMinOffset        first readable commit-log offset
 * @param logMaxOffset        end of the written commit log
 * @param dispatchBehindBytes log bytes written but not yet indexed into consume queues
 * @param unflushedBytes      log bytes written but not yet forced to disk
 * @param diskUsedRatio       used share (0..1) of the file system holding the data directory, -1 when unknown
 * @param earliestMessageTime store time of the oldest message in the log (epoch ms), -1 when the log is empty
 */
public record RuntimeFigures(
        long bootTimestamp,
        Rates stored,
        Rates handedOut,
        Rates readsFound,
        Rates readsMissed,
        Totals storedTotals,
        Totals handedOutTotals,
        long logMinOffset,
        long logMaxOffset,
        long dispatchBehindBytes,
        long unflushedBytes,
        double diskUsedRatio,
        long earliestMessageTime) {

    /** Per-second rates over the last 10 seconds, minute and 10 minutes. */
    public record Rates(double last10Seconds, double lastMinute, double last10Minutes) {
    }

    /** A count now, at the start of today and at the start of yesterday (local time; 0 before the start). */
    public record Totals(long now, long todayMorning, long yesterdayMorning) {
    }
}
