/**
 * Timers: delayed delivery at any millisecond deliver time (RocketMQ 5 {@code TIMER_DELIVER_MS},
 * {@code TIMER_DELAY_MS}, {@code TIMER_DELAY_SEC}) and the eighteen 4.x delay levels ({@code DELAY}) mapped onto it.
 *
 * <h2>Walk of a delayed message</h2>
 * <ol>
 *   <li><b>send</b>: {@link io.junction.core.timer.DeliveryTime} resolves the deliver time against the store clock
 *       ({@code StoreConfig.maxDelay} caps it, ILLEGAL_ARGUMENT beyond; a time not in the future is an ordinary send).
 *       The store picks the real queue and unique id as for any send, then {@link io.junction.core.timer.TimerMessages}
 *       parks the message in the system topic {@value io.junction.core.timer.TimerService#TOPIC} (one queue, no topic
 *       entry: never listed, not pullable, refused as a send target) with {@code REAL_TOPIC}, {@code REAL_QID} and
 *       the absolute {@code TIMER_DELIVER_MS}. The send completes when that record is durable; the SendResult names
 *       the real topic and queue and the message's unique id.</li>
 *   <li><b>load</b>: the dispatcher indexes the parked record into the timer queue like any other. The
 *       {@link io.junction.core.timer.TimerService} tick (every 5 ms, one thread) reads the timer queue from where it
 *       left off into the {@link io.junction.core.timer.TimerWheel}: a min-heap of (deliver time, timer-queue offset,
 *       log offset). A heap rather than a hashed wheel: O(log n) per timer is noise next to the log read and append
 *       each timer costs, and it needs no slot-size tuning for "any millisecond up to 24 h".</li>
 *   <li><b>fire</b>: the tick pops what is due by the store clock, re-reads the record and appends the message to its
 *       real topic and queue through the normal append path (without timer routing), with the same unique id and
 *       properties minus the routing ones. The delay as sent stays, as RocketMQ keeps it: {@code DELAY} (so a 4.x
 *       consumer's {@code getDelayTimeLevel()} reads the level sent), {@code TIMER_DELAY_SEC} or
 *       {@code TIMER_DELAY_MS}; {@code TIMER_DELIVER_MS} stays too, so consumers can see when it was due.</li>
 * </ol>
 *
 * <h2>Fire once across restarts</h2>
 * The wheel keeps one "finished" bit per timer-queue offset; a timer is finished when its delivered copy's append has
 * completed (or it was found delivered, or its record is gone). The <em>watermark</em> is the smallest unfinished
 * offset. It is saved to {@code config/timer-progress.dat} ({@code MetadataFile}: atomic replace) about once a second
 * and at close, and never ahead of the disk: a watermark is saved only once the log has been forced past the write
 * position at the moment it was computed (so under ASYNC flush no delivered copy it accounts for can be lost).
 * At start the service reloads the timer queue from the saved watermark. Everything reloaded from below the queue's
 * end at start may have fired before the restart (the watermark lags by up to a second, or a long timer holds it
 * back); before firing such a timer the service asks the id index for a copy of the message in its real topic, with
 * the same unique id and {@code TIMER_DELIVER_MS}, stored after the parked record. Recovery has indexed the whole log
 * before the service starts, so the answer is exact: if the copy is in the log, it is not delivered again; if it was
 * lost with a torn tail, it is delivered again (which is what must happen).
 *
 * <h2>Residual windows and limits</h2>
 * <ul>
 *   <li>ASYNC flush: a delivered copy a consumer read before a crash but that never reached the disk is delivered
 *       again after the restart, as an ordinary unforced message would simply be lost. SYNC flush has no window.</li>
 *   <li>Two parked records with the same unique id and deliver time (a producer retrying a send) look alike to the
 *       check above: after a restart, the second may be suppressed if the first's copy sits after it in the log.</li>
 *   <li>Memory is O(pending timers) (one heap entry each) and a restart reads every pending parked record once to
 *       learn its deliver time. Putting the deliver time into the queue entry's tag-hash slot (as RocketMQ's schedule
 *       topic does) would make the reload read the queue only.</li>
 *   <li>Retention does not know about pending timers: keep {@code maxDelay} below {@code retention}; a parked record
 *       deleted under disk pressure before it fires is dropped with a warning.</li>
 *   <li>Lateness is bounded by the 5 ms tick plus the append path; a burst of due timers is fired in deliver-time
 *       order, 32 Ki per tick.</li>
 * </ul>
 */
package io.junction.core.timer;
