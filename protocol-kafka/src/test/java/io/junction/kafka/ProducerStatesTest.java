package io.junction.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Sequence checks of idempotent producers. */
class ProducerStatesTest {
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final ProducerStates states = new ProducerStates(clock::get);

    @Test
    void shouldHandOutNewIdsAfterARestart() {
        final long first = states.newProducerId();
        assertThat(states.newProducerId()).isEqualTo(first + 1);
        clock.addAndGet(1);
        assertThat(new ProducerStates(clock::get).newProducerId()).isGreaterThan(first + 1);
    }

    @Test
    void shouldAnswerARepeatedBatchWithItsFirstOffset() {
        final ProducerStates.Decision a = states.check(1, (short) 0, "t", 0, 0, 4);
        assertThat(a.isAppend()).isTrue();
        a.appended().complete(100L);
        final ProducerStates.Decision again = states.check(1, (short) 0, "t", 0, 0, 4);
        assertThat(again.isAppend()).isFalse();
        assertThat(again.duplicateOf().join()).isEqualTo(100L);
        assertThat(states.check(1, (short) 0, "t", 0, 5, 5).isAppend()).isTrue();
        // Another partition keeps its own sequence.
        assertThat(states.check(1, (short) 0, "t", 1, 0, 0).isAppend()).isTrue();
    }

    @Test
    void shouldRefuseGapsOldEpochsAndANewEpochNotStartingAtZero() {
        states.check(2, (short) 1, "t", 0, 0, 0).appended().complete(0L);
        assertThat(states.check(2, (short) 1, "t", 0, 2, 2).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(states.check(2, (short) 0, "t", 0, 1, 1).error()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(states.check(2, (short) 2, "t", 0, 1, 1).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(states.check(2, (short) 2, "t", 0, 0, 3).isAppend()).isTrue();
    }

    @Test
    void shouldTakeARetryOfABatchThatWasNotStored() {
        final ProducerStates.Decision a = states.check(3, (short) 0, "t", 0, 0, 1);
        a.appended().completeExceptionally(new IllegalStateException("disk"));
        final ProducerStates.Decision retry = states.check(3, (short) 0, "t", 0, 0, 1);
        assertThat(retry.isAppend()).isTrue();
    }

    @Test
    void shouldRememberOnlyTheLastFiveBatches() {
        for (int i = 0; i < 6; i++) {
            states.check(4, (short) 0, "t", 0, i, i).appended().complete((long) i);
        }
        assertThat(states.check(4, (short) 0, "t", 0, 5, 5).duplicateOf().join()).isEqualTo(5L);
        assertThat(states.check(4, (short) 0, "t", 0, 0, 0).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    }

    @Test
    void shouldAnswerARetryAfterARestartFromTheBatchesMarkedInThePartition() {
        // Producer 7 was handed out by an earlier run; its batches 0-4 and 5-9 are in the partition at 100 and 105.
        final CompletableFuture<List<ProducerStates.StoredBatch>> found = new CompletableFuture<>();
        final AtomicInteger finds = new AtomicInteger();
        final List<String> order = new ArrayList<>();
        final CompletableFuture<ProducerStates.Decision> retry = states.whenKnown(7, "t", 0, () -> {
            finds.incrementAndGet();
            return found;
        }, () -> {
            order.add("retry");
            return CompletableFuture.completedFuture(states.check(7, (short) 3, "t", 0, 5, 9));
        });
        final CompletableFuture<ProducerStates.Decision> next = states.whenKnown(7, "t", 0, () -> {
            finds.incrementAndGet();
            return found;
        }, () -> {
            order.add("next");
            return CompletableFuture.completedFuture(states.check(7, (short) 3, "t", 0, 10, 10));
        });
        assertThat(retry).isNotDone();
        found.complete(List.of(ProducerStates.parseMark(ProducerStates.mark(7, (short) 3, 0, 4), 7, 100),
                ProducerStates.parseMark(ProducerStates.mark(7, (short) 3, 5, 9), 7, 105)));
        assertThat(retry.join().isAppend()).isFalse();
        assertThat(retry.join().duplicateOf().join()).isEqualTo(105L);
        assertThat(next.join().isAppend()).isTrue();
        assertThat(order).containsExactly("retry", "next");
        assertThat(finds).hasValue(1);
        // Another producer's mark is not this one's; a producer of this run is never looked up.
        assertThat(ProducerStates.parseMark(ProducerStates.mark(70, (short) 3, 0, 4), 7, 1)).isNull();
        final long current = states.newProducerId();
        assertThat(states.whenKnown(current, "t", 0, () -> {
            throw new AssertionError("looked up");
        }, () -> CompletableFuture.completedFuture(states.check(current, (short) 0, "t", 0, 0, 0))).join()
                .isAppend()).isTrue();
    }

    @Test
    void shouldReadAnyProducersMarkAndListTheProducersOfAPartition() {
        assertThat(ProducerStates.parseMark(ProducerStates.mark(42, (short) 3, 10, 14), 7))
                .isEqualTo(new ProducerStates.MarkedBatch(42, new ProducerStates.StoredBatch((short) 3, 10, 14, 7)));
        assertThat(ProducerStates.parseMark("not.a.mark", 7)).isNull();
        assertThat(ProducerStates.parseMark("1.x.2.3", 7)).isNull();
        assertThat(ProducerStates.parseMark(ProducerStates.mark(42, (short) 3, 10, 14), 43, 7)).isNull();

        final long a = states.newProducerId();
        final long b = states.newProducerId();
        states.check(a, (short) 0, "t", 0, 0, 4).appended().complete(0L);
        states.check(b, (short) 1, "t", 0, 0, 0).appended().complete(5L);
        states.check(b, (short) 1, "t", 1, 0, 2).appended().complete(0L);
        assertThat(states.known("t", 0)).extracting(ProducerStates.ActiveProducer::producerId,
                        ProducerStates.ActiveProducer::epoch, ProducerStates.ActiveProducer::lastSequence)
                .containsExactlyInAnyOrder(org.assertj.core.api.Assertions.tuple(a, (short) 0, 4),
                        org.assertj.core.api.Assertions.tuple(b, (short) 1, 0));
        assertThat(states.known("t", 2)).isEmpty();
    }
}
