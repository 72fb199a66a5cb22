package io.junction.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.log.CommitLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * How written ranges become entries: at most the window's entries wait for their commit, ranges written meanwhile go
 * together as the next entry, in log order, and a failure never lets a later range through. The entries here are
 * committed by the test (the group's own commit path is covered by StoreGroupTest and MessageBytesWrittenOnceTest).
 */
class RangeProposalsTest {
    /** A proposed entry: its range, and the future the test completes as the group would. */
    private record Proposed(long from, long to, CompletableFuture<Void> commit) {
    }

    private final List<Proposed> proposed = new ArrayList<>();
    /** The proposing thread, run by the test: what it holds runs when the test says so. */
    private final List<Runnable> proposing = new ArrayList<>();

    private RangeProposals proposals(final int window, final long flushBytes) {
        return new RangeProposals((log, from, to) -> {
            final CompletableFuture<Void> commit = new CompletableFuture<>();
            proposed.add(new Proposed(from, to, commit));
            return commit;
        }, proposing::add, window, flushBytes);
    }

    private void runProposing() {
        while (!proposing.isEmpty()) {
            proposing.remove(0).run();
        }
    }

    @Test
    void rangesWrittenWhileTheWindowIsFullGoAsOneEntryOnceOneCommits() {
        final RangeProposals proposals = proposals(1, 1 << 20);
        final CompletableFuture<Void> first = proposals.offer(null, 0, 100);
        final CompletableFuture<Void> second = proposals.offer(null, 100, 250);
        final CompletableFuture<Void> third = proposals.offer(null, 250, 300);

        assertThat(proposed).extracting(Proposed::from, Proposed::to)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0L, 100L));
        proposed.get(0).commit().complete(null);
        assertThat(first).isCompleted();
        assertThat(second).isNotDone();
        runProposing();

        assertThat(proposed).hasSize(2);
        assertThat(proposed.get(1).from()).isEqualTo(100);
        assertThat(proposed.get(1).to()).isEqualTo(300);
        proposed.get(1).commit().complete(null);
        assertThat(second).isCompleted();
        assertThat(third).isCompleted();
    }

    @Test
    void aWindowOfTwoKeepsTwoEntriesInFlight() {
        final RangeProposals proposals = proposals(2, 1 << 20);
        proposals.offer(null, 0, 10);
        proposals.offer(null, 10, 20);
        proposals.offer(null, 20, 30);
        proposals.offer(null, 30, 40);

        assertThat(proposed).extracting(Proposed::to).containsExactly(10L, 20L);
        proposed.get(1).commit().complete(null);
        runProposing();
        assertThat(proposed).extracting(Proposed::from, Proposed::to).containsExactly(
                org.assertj.core.groups.Tuple.tuple(0L, 10L), org.assertj.core.groups.Tuple.tuple(10L, 20L),
                org.assertj.core.groups.Tuple.tuple(20L, 40L));
    }

    @Test
    void aHeldRangeAsLargeAsAnEntryIsProposedWithTheWindowFull() {
        final RangeProposals proposals = proposals(1, 1000);
        proposals.offer(null, 0, 10);
        proposals.offer(null, 10, 500);
        assertThat(proposed).hasSize(1);
        proposals.offer(null, 500, 1010);

        assertThat(proposed).extracting(Proposed::from, Proposed::to).containsExactly(
                org.assertj.core.groups.Tuple.tuple(0L, 10L), org.assertj.core.groups.Tuple.tuple(10L, 1010L));
    }

    @Test
    void aFailedEntryFailsTheHeldRangesAndRefusesLaterOnes() {
        final RangeProposals proposals = proposals(1, 1 << 20);
        final CompletableFuture<Void> first = proposals.offer(null, 0, 10);
        final CompletableFuture<Void> held = proposals.offer(null, 10, 20);
        final StoreException notLeader = new StoreException(StoreError.UNAVAILABLE, "not the leader");

        proposed.get(0).commit().completeExceptionally(notLeader);
        runProposing();

        assertThat(first).isCompletedExceptionally();
        assertThat(held).isCompletedExceptionally();
        assertThat(proposals.offer(null, 20, 30)).isCompletedExceptionally();
        assertThat(proposed).as("nothing proposed after the failed entry").hasSize(1);
    }

    @Test
    void refusingFailsTheHeldRangesAndTheyAreNeverProposed() {
        final RangeProposals proposals = proposals(1, 1 << 20);
        final CompletableFuture<Void> first = proposals.offer(null, 0, 10);
        final CompletableFuture<Void> held = proposals.offer(null, 10, 20);

        proposals.refuse(new StoreException(StoreError.UNAVAILABLE, "the store reopened"));
        assertThat(held).isCompletedExceptionally();
        // The entry already proposed still answers its own senders when it commits.
        proposed.get(0).commit().complete(null);
        runProposing();

        assertThat(first).isCompleted();
        assertThat(proposed).hasSize(1);
    }

    @Test
    void aRangeThatDoesNotContinueTheHeldOneIsRefused() {
        final RangeProposals proposals = proposals(1, 1 << 20);
        proposals.offer(null, 0, 10);
        proposals.offer(null, 10, 20);

        assertThat(proposals.offer(null, 30, 40)).isCompletedExceptionally();
        assertThat(proposals.offer((CommitLog) null, 20, 40)).isNotDone();
    }
}
