package io.junction.core.engine;

import static io.junction.core.engine.TestStores.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.log.CommitLog;
import io.junction.core.log.LogReplication;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A store as one replica of a group: a leader's sends wait for their range to be committed, a failed range fences
 * the store, a follower writes a leader's exact bytes ahead of the commit and serves them once committed, and a
 * leader's open cuts an uncommitted tail while a follower's keeps it. The
 * "group" here is a list of ranges the test commits or fails by hand.
 */
class ReplicaRoleTest {
    @TempDir
    Path dir;

    /** Ranges the leader shipped, each with the future the test completes to commit (or fail) it. */
    private static final class HeldRanges implements LogReplication {
        record Range(long from, ByteBuffer bytes, CompletableFuture<Void> committed) {
        }

        final List<Range> ranges = new CopyOnWriteArrayList<>();
        volatile long committed;

        @Override
        public boolean enabled() {
            return true;
        }

        @Override
        public CompletableFuture<Void> replicate(final CommitLog log, final long from, final long to) {
            final CompletableFuture<Void> f = new CompletableFuture<>();
            try {
                ranges.add(new Range(from, log.copyRange(from, to), f));
            } catch (IOException e) {
                return CompletableFuture.failedFuture(e);
            }
            return f.thenRun(() -> committed = Math.max(committed, to));
        }

        @Override
        public long committedOffset() {
            return committed;
        }

        void commitAll() {
            ranges.forEach(r -> r.committed().complete(null));
        }
    }

    @ParameterizedTest
    @EnumSource(FlushMode.class)
    void shouldAnswerALeadersSendOnlyOnceItsRangeIsCommitted(final FlushMode mode) throws Exception {
        final HeldRanges group = new HeldRanges();
        final HeldRanges followerView = new HeldRanges();
        try (MessageStore leader = MessageStore.open(TestStores.small(dir.resolve("leader")).flushMode(mode).build(),
                ReplicaRole.leader(group, -1, null));
             MessageStore follower = MessageStore.open(TestStores.small(dir.resolve("follower")).flushMode(mode)
                     .build(), ReplicaRole.writingAhead(-1, followerView, null))) {
            leader.topics().createIfAbsent(TopicConfig.of("t", 1)).join();
            follower.topics().createIfAbsent(TopicConfig.of("t", 1)).join();
            final List<CompletableFuture<SendResult>> sends = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                sends.add(leader.send(text("t", "m" + i)));
            }
            awaitTrue(() -> group.ranges.stream().mapToLong(r -> r.bytes().remaining()).sum() > 0);
            TimeUnit.MILLISECONDS.sleep(100); // nothing may complete while the group has not committed
            assertThat(sends).noneMatch(CompletableFuture::isDone);
            assertThat(leader.maxOffset("t", 0)).as("consumers see nothing uncommitted").isZero();

            group.commitAll();
            awaitTrue(() -> sends.stream().allMatch(CompletableFuture::isDone));
            final List<SendResult> acked = sends.stream().map(CompletableFuture::join).toList();
            assertThat(acked).extracting(SendResult::queueOffset).containsExactlyElementsOf(
                    LongStream.range(0, 20).boxed().toList());

            // The follower writes the leader's exact bytes at the same offsets and serves them.
            for (HeldRanges.Range r : group.ranges) {
                follower.writeAhead(r.from(), r.bytes());
            }
            followerView.committed = leader.logEnd();
            follower.committedMore();
            assertThat(follower.logEnd()).isEqualTo(leader.logEnd());
            awaitTrue(() -> follower.maxOffset("t", 0) == 20);
            assertThat(TestStores.readAll(follower, "t", 0)).extracting(TestStores::body)
                    .containsExactlyElementsOf(TestStores.readAll(leader, "t", 0).stream().map(TestStores::body)
                            .toList());
            assertThat(errorOf(follower.send(text("t", "x")))).isEqualTo(StoreError.UNAVAILABLE);
        }
    }

    @Test
    void shouldFenceTheLeaderWhenARangeIsNotCommitted() {
        final HeldRanges group = new HeldRanges();
        try (MessageStore leader = MessageStore.open(TestStores.small(dir).build(),
                ReplicaRole.leader(group, -1, null))) {
            leader.topics().createIfAbsent(TopicConfig.of("t", 1)).join();
            final CompletableFuture<SendResult> lost = leader.send(text("t", "lost"));
            awaitTrue(() -> !group.ranges.isEmpty());
            group.ranges.get(0).committed().completeExceptionally(new IOException("no majority"));
            assertThat(errorOf(lost)).isEqualTo(StoreError.UNAVAILABLE);
            assertThat(errorOf(leader.send(text("t", "later")))).isEqualTo(StoreError.UNAVAILABLE);
        }
    }

    @Test
    void shouldCutTheTailTheGroupNeverCommittedAtOpen() {
        final HeldRanges group = new HeldRanges();
        final long committedEnd;
        try (MessageStore leader = MessageStore.open(TestStores.small(dir).build(),
                ReplicaRole.leader(group, -1, null))) {
            leader.topics().createIfAbsent(TopicConfig.of("t", 1)).join();
            final CompletableFuture<SendResult> first = leader.send(text("t", "kept"));
            awaitTrue(() -> group.ranges.size() == 1);
            group.commitAll();
            first.join();
            committedEnd = leader.logEnd();
            leader.send(text("t", "never committed"));
            awaitTrue(() -> group.ranges.size() == 2);
        }
        // Reopened as leader at the committed end (a promoted replica): the rest is in no entry of the group.
        final HeldRanges next = new HeldRanges();
        next.committed = Long.MAX_VALUE;
        try (MessageStore leader = MessageStore.open(TestStores.small(dir).build(),
                ReplicaRole.leader(next, committedEnd, null))) {
            assertThat(leader.logEnd()).isEqualTo(committedEnd);
            awaitTrue(() -> leader.maxOffset("t", 0) == 1);
            final List<StoredMessage> left = TestStores.readAll(leader, "t", 0);
            assertThat(left).extracting(TestStores::body).containsExactly("kept");
        }
    }

    @Test
    void shouldShowAFollowersWrittenAheadRangesOnlyOnceCommittedAndKeepThemAcrossAReopen() throws IOException {
        final HeldRanges group = new HeldRanges();
        final Path followerDir = dir.resolve("follower");
        try (MessageStore leader = MessageStore.open(TestStores.small(dir.resolve("leader")).build(),
                ReplicaRole.leader(group, -1, null))) {
            leader.topics().createIfAbsent(TopicConfig.of("t", 1)).join();
            for (int i = 0; i < 3; i++) {
                final CompletableFuture<SendResult> sent = leader.send(text("t", "m" + i));
                final int shipped = i + 1;
                awaitTrue(() -> group.ranges.size() == shipped);
                group.commitAll();
                sent.join();
            }
            final HeldRanges.Range first = group.ranges.get(0);
            final HeldRanges.Range last = group.ranges.get(group.ranges.size() - 1);
            final HeldRanges followerView = new HeldRanges();
            try (MessageStore follower = MessageStore.open(TestStores.small(followerDir).build(),
                    ReplicaRole.writingAhead(0, followerView, null))) {
                follower.topics().createIfAbsent(TopicConfig.of("t", 1)).join();
                for (HeldRanges.Range r : group.ranges) {
                    follower.writeAhead(r.from(), r.bytes());
                }
                assertThat(follower.logEnd()).isEqualTo(leader.logEnd());
                assertThat(follower.maxOffset("t", 0)).as("nothing committed yet").isZero();

                // The group commits all but the last range: consumers see exactly those.
                followerView.committed = last.from();
                follower.committedMore();
                awaitTrue(() -> follower.maxOffset("t", 0) == 2);
                assertThat(TestStores.readAll(follower, "t", 0)).extracting(TestStores::body)
                        .containsExactly("m0", "m1");

                // The committed part is never cut; the uncommitted one is, and written again.
                assertThat(errorOf(() -> follower.cutAhead(first.from()))).isNotNull();
                follower.cutAhead(last.from());
                assertThat(follower.logEnd()).isEqualTo(last.from());
                follower.writeAhead(last.from(), last.bytes());
            }
            // Reopened at the committed end, the written-ahead tail is kept but not shown until committed.
            try (MessageStore follower = MessageStore.open(TestStores.small(followerDir).build(),
                    ReplicaRole.writingAhead(last.from(), followerView, null))) {
                assertThat(follower.logEnd()).isEqualTo(leader.logEnd());
                awaitTrue(() -> follower.maxOffset("t", 0) == 2);
                followerView.committed = leader.logEnd();
                follower.committedMore();
                awaitTrue(() -> follower.maxOffset("t", 0) == 3);
                assertThat(TestStores.readAll(follower, "t", 0)).extracting(TestStores::body)
                        .containsExactly("m0", "m1", "m2");
            }
        }
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private static IOException errorOf(final IoAction action) {
        try {
            action.run();
            return null;
        } catch (IOException e) {
            return e;
        }
    }

    private static StoreError errorOf(final CompletableFuture<?> future) {
        try {
            future.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause() instanceof StoreException s ? s.error() : null;
        }
    }

    private static void awaitTrue(final BooleanSupplier condition) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met in time");
            }
            Thread.onSpinWait();
        }
    }
}
