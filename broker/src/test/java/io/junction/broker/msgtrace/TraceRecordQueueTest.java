package io.junction.broker.msgtrace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The hand-over queue drops and counts what does not fit, and hands batches out in order. */
class TraceRecordQueueTest {

    @Test
    void shouldDropAndCountRecordsOfferedToAFullQueue() {
        final TraceRecordQueue queue = new TraceRecordQueue(3);

        final List<Boolean> accepted = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            accepted.add(queue.offer(entry(i)));
        }

        assertThat(accepted).containsExactly(true, true, true, false, false);
        assertThat(queue.dropped()).isEqualTo(2);
    }

    @Test
    void shouldHandOutAtMostMaxRecordsInOfferOrder() throws InterruptedException {
        final TraceRecordQueue queue = new TraceRecordQueue(10);
        for (int i = 0; i < 5; i++) {
            queue.offer(entry(i));
        }
        final List<TracePacker.Entry> batch = new ArrayList<>();

        assertThat(queue.take(batch, 3, 0, 0)).isTrue();

        assertThat(batch).extracting(TracePacker.Entry::msgId).containsExactly("ID:0", "ID:1", "ID:2");
        batch.clear();
        assertThat(queue.take(batch, 3, 0, 0)).isTrue();
        assertThat(batch).extracting(TracePacker.Entry::msgId).containsExactly("ID:3", "ID:4");
        batch.clear();
        assertThat(queue.take(batch, 3, 0, 0)).isFalse();
        assertThat(batch).isEmpty();
        assertThat(queue.dropped()).isZero();
    }

    @Test
    void shouldGatherRecordsOfferedWhileLingeringAndStopLingeringOnceTheBatchIsFull() throws Exception {
        final TraceRecordQueue queue = new TraceRecordQueue(10);
        queue.offer(entry(0));
        final List<TracePacker.Entry> batch = new ArrayList<>();
        final ExecutorService writer = Executors.newSingleThreadExecutor();
        try {
            // A minute's linger: only a full batch can end this take within the wait below.
            final Future<Boolean> taken = writer.submit(() -> queue.take(batch, 3, 0, TimeUnit.MINUTES.toNanos(1)));
            queue.offer(entry(1));
            queue.offer(entry(2));
            queue.offer(entry(3));

            assertThat(taken.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(batch).extracting(TracePacker.Entry::msgId).containsExactly("ID:0", "ID:1", "ID:2");
            assertThat(queue.isEmpty()).isFalse();
        } finally {
            writer.shutdownNow();
        }
    }

    @Test
    void shouldWakeAWriterWaitingForAFirstRecord() throws Exception {
        final TraceRecordQueue queue = new TraceRecordQueue(10);
        final List<TracePacker.Entry> batch = new ArrayList<>();
        final ExecutorService writer = Executors.newSingleThreadExecutor();
        try {
            // Waits up to a minute for a first record, then lingers not at all.
            final Future<Boolean> taken = writer.submit(() -> queue.take(batch, 3, 60_000, 0));
            Thread.sleep(50); // let it fall asleep first (it passes either way)
            queue.offer(entry(7));

            assertThat(taken.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(batch).extracting(TracePacker.Entry::msgId).containsExactly("ID:7");
        } finally {
            writer.shutdownNow();
        }
    }

    @Test
    void shouldEndALingerWhenTheQueueCloses() throws Exception {
        final TraceRecordQueue queue = new TraceRecordQueue(10);
        queue.offer(entry(0));
        final List<TracePacker.Entry> batch = new ArrayList<>();
        final ExecutorService writer = Executors.newSingleThreadExecutor();
        try {
            final Future<Boolean> taken = writer.submit(() -> queue.take(batch, 3, 0, TimeUnit.MINUTES.toNanos(1)));
            queue.close();

            assertThat(taken.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(batch).extracting(TracePacker.Entry::msgId).containsExactly("ID:0");
        } finally {
            writer.shutdownNow();
        }
    }

    @Test
    void shouldCountWhatIsDiscardedAndWhatIsLostLater() {
        final TraceRecordQueue queue = new TraceRecordQueue(10);
        queue.offer(entry(1));
        queue.offer(entry(2));

        queue.discard();
        queue.dropped(3);

        assertThat(queue.isEmpty()).isTrue();
        assertThat(queue.dropped()).isEqualTo(5);
    }

    private static TracePacker.Entry entry(final int i) {
        return TracePacker.Entry.of(MessageTraceWriter.DEFAULT_TOPIC, "SubBefore\u0001" + i + '\u0002', "ID:" + i,
                null);
    }
}
