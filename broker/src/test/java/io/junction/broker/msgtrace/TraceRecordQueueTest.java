package io.junction.broker.msgtrace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
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
