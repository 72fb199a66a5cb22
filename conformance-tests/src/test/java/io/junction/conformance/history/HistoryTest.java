package io.junction.conformance.history;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HistoryTest {
    @Test
    void shouldBeCleanWhenEveryAcknowledgedMessageArrivesOnceInOrder() {
        final History h = new History();
        h.acknowledged("a1", "A", 1);
        h.acknowledged("a2", "A", 2);
        h.acknowledged("x", null, 0);
        h.delivered("a1", "c1");
        h.delivered("x", "c2");
        h.delivered("a2", "c1");
        final History.Report r = h.check();
        assertThat(r.clean()).isTrue();
        assertThat(r.acknowledged()).isEqualTo(3);
        assertThat(r.delivered()).isEqualTo(3);
    }

    @Test
    void shouldReportLostDuplicatedOutOfOrderAndUnexpectedMessages() {
        final History h = new History();
        h.acknowledged("a1", "A", 1);
        h.acknowledged("a2", "A", 2);
        h.acknowledged("lost", null, 0);
        h.acknowledged("dup", null, 0);
        h.delivered("a2", "c1");
        h.delivered("a1", "c1");
        h.delivered("dup", "c1");
        h.delivered("dup", "c2");
        h.delivered("ghost", "c2");
        final History.Report r = h.check();
        assertThat(r.clean()).isFalse();
        assertThat(r.lost()).containsExactly("lost");
        assertThat(r.duplicates()).containsEntry("dup", 2).hasSize(1);
        assertThat(r.outOfOrder()).containsExactly("A: 1 after 2");
        assertThat(r.unexpected()).containsExactly("ghost");
        assertThat(r.toString()).contains("lost 1").contains("duplicated 1").contains("out of order 1");
    }

    @Test
    void shouldNotCountARedeliveryAsOutOfOrder() {
        final History h = new History();
        h.acknowledged("a1", "A", 1);
        h.acknowledged("a2", "A", 2);
        h.delivered("a1", "c1");
        h.delivered("a2", "c1");
        h.delivered("a1", "c2"); // redelivered after a lost ack: a duplicate, not a reordering
        final History.Report r = h.check();
        assertThat(r.outOfOrder()).isEmpty();
        assertThat(r.duplicates()).containsEntry("a1", 2);
        assertThat(r.clean()).isTrue();
    }
}
