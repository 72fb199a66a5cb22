package io.junction.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.Receipt;
import org.junit.jupiter.api.Test;

class InflightTrackerTest {

    private static final InflightTracker.GroupTopic KEY = new InflightTracker.GroupTopic("g", "t");

    private static Receipt receipt(final String sealed) {
        return () -> sealed;
    }

    @Test
    void shouldCountPoppedMessagesUntilAckedByObjectOrBySealedText() {
        final InflightTracker tracker = new InflightTracker(10);
        final Receipt a = tracker.popped("g", "t", receipt("a"), 60_000, null, null, null);
        final Receipt b = tracker.popped("g", "t", receipt("b"), 60_000, null, null, null);
        assertThat(tracker.snapshot()).containsEntry(KEY, 2L);

        tracker.settle(a);
        assertThat(tracker.snapshot()).containsEntry(KEY, 1L);
        assertThat(InflightTracker.unwrap(a).sealed()).isEqualTo("a");

        assertThat(b.sealed()).isEqualTo("b"); // a front-end hands the handle out, then its client acks the text
        assertThat(tracker.settle("b").topic()).isEqualTo("t");
        assertThat(tracker.settle("b")).isNull(); // settled once: the text no longer names it
        assertThat(tracker.snapshot()).containsEntry(KEY, 0L);
    }

    @Test
    void shouldStopCountingWhatPassedItsInvisibleTime() {
        final InflightTracker tracker = new InflightTracker(10);
        tracker.popped("g", "t", receipt("a"), 0, null, null, null);
        tracker.popped("g", "t", receipt("b"), 60_000, null, null, null);
        tracker.sweep(System.nanoTime() + 1);
        assertThat(tracker.snapshot()).containsEntry(KEY, 1L);
    }

    @Test
    void shouldFollowAtMostItsLimit() {
        final InflightTracker tracker = new InflightTracker(1);
        tracker.popped("g", "t", receipt("a"), 60_000, null, null, null);
        final Receipt untracked = receipt("b");
        assertThat(tracker.popped("g", "t", untracked, 60_000, null, null, null)).isSameAs(untracked);
        assertThat(tracker.snapshot()).containsEntry(KEY, 1L);
    }

    @Test
    void shouldLabelValuesBeyondTheCapAsOther() {
        final BoundedLabels labels = new BoundedLabels(2);
        assertThat(labels.label("a")).isEqualTo("a");
        assertThat(labels.label("b")).isEqualTo("b");
        assertThat(labels.label("c")).isEqualTo(BoundedLabels.OTHER);
        assertThat(labels.label("a")).isEqualTo("a");
    }
}
