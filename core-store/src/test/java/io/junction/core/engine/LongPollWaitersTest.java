package io.junction.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LongPollWaitersTest {
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);

    LongPollWaitersTest() {
        timer.setRemoveOnCancelPolicy(true);
    }

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void shouldRunAWaiterOnceWhenItsQueueGetsAnEntry() {
        final LongPollWaiters waiters = new LongPollWaiters(timer, Runnable::run, 10);
        final AtomicInteger runs = new AtomicInteger();
        assertThat(waiters.park("t", 0, 60_000, runs::incrementAndGet)).isNotNull();
        waiters.arrived("t", 1);
        assertThat(runs).hasValue(0);
        waiters.arrived("t", 0);
        waiters.arrived("t", 0);
        assertThat(runs).hasValue(1);
        assertThat(waiters.parked()).isZero();
    }

    @Test
    void shouldDropACancelledWaiterAndItsTimeOutAtOnce() {
        final LongPollWaiters waiters = new LongPollWaiters(timer, Runnable::run, 10);
        final AtomicInteger runs = new AtomicInteger();
        final LongPollWaiters.Parked parked = waiters.parkAny(
                List.of(new LongPollWaiters.QueueKey("t", 0), new LongPollWaiters.QueueKey("t", 1)), 60_000,
                runs::incrementAndGet);
        assertThat(waiters.parked()).isEqualTo(1);
        assertThat(timer.getQueue()).hasSize(1);
        parked.cancel();
        assertThat(waiters.parked()).isZero();
        assertThat(timer.getQueue()).as("the time-out task is gone, not waiting a minute").isEmpty();
        waiters.arrived("t", 0);
        waiters.arrived("t", 1);
        assertThat(runs).hasValue(0);
        parked.cancel(); // idempotent
        assertThat(waiters.parked()).isZero();
    }

    @Test
    void shouldLeaveNothingBehindInTheTimerWhenAnArrivalWakesAWaiter() {
        final LongPollWaiters waiters = new LongPollWaiters(timer, Runnable::run, 10);
        final AtomicInteger runs = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            waiters.park("t", 0, 60_000, runs::incrementAndGet);
        }
        waiters.parkAny(List.of(new LongPollWaiters.QueueKey("t", 0), new LongPollWaiters.QueueKey("t", 1)), 60_000,
                runs::incrementAndGet);
        assertThat(timer.getQueue()).hasSize(4);
        assertThat(waiters.parkedOn("t", 1)).isEqualTo(1);
        waiters.arrived("t", 0);
        assertThat(runs).hasValue(4);
        assertThat(timer.getQueue()).as("time-outs of woken reads are dropped, not kept for a minute").isEmpty();
        assertThat(waiters.parkedOn("t", 0)).isZero();
        assertThat(waiters.parkedOn("t", 1)).as("a read woken on one queue leaves its others at once").isZero();
        waiters.arrived("t", 1);
        assertThat(runs).as("a woken read runs once").hasValue(4);
    }

    @Test
    void shouldRunEveryWaiterWhoseTimeOutFiresWhileItIsStillJoiningItsQueues() throws Exception {
        final int waits = 3000;
        final LongPollWaiters waiters = new LongPollWaiters(timer, Runnable::run, waits);
        final java.util.concurrent.CountDownLatch ran = new java.util.concurrent.CountDownLatch(waits);
        final List<LongPollWaiters.QueueKey> keys = new java.util.ArrayList<>();
        for (int q = 0; q < 64; q++) {
            keys.add(new LongPollWaiters.QueueKey("t", q));
        }
        for (int i = 0; i < waits; i++) {
            waiters.parkAny(keys, i % 2, ran::countDown); // 0 or 1 ms: the time-out races the joining
        }
        assertThat(ran.await(10, java.util.concurrent.TimeUnit.SECONDS)).as("every waiter ran").isTrue();
        assertThat(waiters.parked()).isZero();
    }

    @Test
    void shouldWakeTheManyReadersOfOneQueueAsAFewTasksRunningEachOnce() {
        final List<Runnable> tasks = new java.util.ArrayList<>();
        final LongPollWaiters waiters = new LongPollWaiters(timer, tasks::add, 1000);
        final int[] runs = new int[100];
        for (int i = 0; i < runs.length; i++) {
            final int reader = i;
            waiters.park("t", 0, 60_000, () -> runs[reader]++);
        }
        waiters.park("t", 1, 60_000, () -> runs[0] += 1000);
        waiters.arrived("t", 0);
        assertThat(tasks).as("100 readers handed over as tasks of at most 32").hasSize(4);
        assertThat(runs).as("nothing runs on the waking thread").containsOnly(0);
        tasks.forEach(Runnable::run);
        assertThat(runs).as("each reader ran once; the other queue's did not").containsOnly(1);
        assertThat(waiters.parkedOn("t", 1)).isEqualTo(1);
        assertThat(timer.getQueue()).hasSize(1);
    }

    @Test
    void shouldRefuseToParkBeyondItsLimit() {
        final LongPollWaiters waiters = new LongPollWaiters(timer, Runnable::run, 1);
        assertThat(waiters.park("t", 0, 60_000, () -> { })).isNotNull();
        assertThat(waiters.park("t", 0, 60_000, () -> { })).isNull();
        waiters.arrived("t", 0);
        assertThat(waiters.park("t", 0, 60_000, () -> { })).isNotNull();
    }
}
