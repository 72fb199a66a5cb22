package io.junction.core.timer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TimerWheelTest {
    private static TimerWheel.Timer timer(final long at, final long offset) {
        return new TimerWheel.Timer(at, offset, offset * 100, false);
    }

    @Test
    void shouldPollDueTimersInDeliverTimeOrder() {
        final TimerWheel wheel = new TimerWheel(0);
        wheel.add(timer(30, 0));
        wheel.add(timer(10, 1));
        wheel.add(timer(20, 2));
        wheel.add(timer(10, 3));
        assertThat(wheel.nextDue()).isEqualTo(10);
        assertThat(wheel.pollDue(9, 100)).isEmpty();
        assertThat(wheel.pollDue(20, 100)).extracting(TimerWheel.Timer::queueOffset).containsExactly(1L, 3L, 2L);
        assertThat(wheel.pendingCount()).isEqualTo(1);
        assertThat(wheel.pollDue(Long.MAX_VALUE, 100)).extracting(TimerWheel.Timer::queueOffset).containsExactly(0L);
    }

    @Test
    void shouldHoldTheWatermarkAtTheSmallestUnfinishedOffset() {
        final TimerWheel wheel = new TimerWheel(5);
        assertThat(wheel.watermark()).isEqualTo(5);
        for (long o = 5; o < 10; o++) {
            wheel.add(timer(o, o));
        }
        assertThat(wheel.watermark()).isEqualTo(5);
        wheel.finish(6);
        wheel.finish(7);
        assertThat(wheel.watermark()).isEqualTo(5);
        wheel.finish(5);
        assertThat(wheel.watermark()).isEqualTo(8);
        wheel.finish(9);
        wheel.finish(8);
        assertThat(wheel.watermark()).isEqualTo(10);
        wheel.skipTo(12);
        assertThat(wheel.watermark()).isEqualTo(12);
        wheel.add(timer(1, 14));
        assertThat(wheel.watermark()).isEqualTo(14);
    }

    @Test
    void shouldKeepARetriedTimerUnfinished() {
        final TimerWheel wheel = new TimerWheel(0);
        wheel.add(timer(10, 0));
        final List<TimerWheel.Timer> due = wheel.pollDue(10, 10);
        wheel.retry(due.get(0), 50);
        assertThat(wheel.watermark()).isZero();
        assertThat(wheel.pollDue(49, 10)).isEmpty();
        assertThat(wheel.pollDue(50, 10)).hasSize(1);
    }

    @Test
    void shouldCompactTheWindowAndStayExact() {
        final TimerWheel wheel = new TimerWheel(0);
        final int n = 100_000;
        for (long o = 0; o < n; o++) {
            wheel.add(timer(o, o));
        }
        for (long o = 0; o < n; o++) {
            if (o != 70_000) {
                wheel.finish(o);
            }
            if (o % 20_000 == 0) {
                assertThat(wheel.watermark()).isEqualTo(Math.min(o + 1, 70_000));
            }
        }
        assertThat(wheel.watermark()).isEqualTo(70_000);
        wheel.finish(70_000);
        assertThat(wheel.watermark()).isEqualTo(n);
        wheel.finish(3); // long finished: ignored
        assertThat(wheel.watermark()).isEqualTo(n);
    }
}
