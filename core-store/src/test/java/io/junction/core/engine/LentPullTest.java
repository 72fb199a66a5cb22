package io.junction.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MessageStore#pullLent}: the reader sees exactly what a pull returns; what it was lent never reaches a later
 * reader (the reader threads reuse their memory, so a lent message remembered by the recent-records cache would be
 * served later with another read's bytes); a cancelled long poll never calls its reader.
 */
class LentPullTest {
    private static final int QUEUES = 4;
    private static final int PER_QUEUE = 200;

    @TempDir
    Path dir;

    @Test
    void shouldLendWhatAPullReturnsAndServeLaterReadsTheirOwnBytes() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", QUEUES)).join();
            for (int i = 0; i < PER_QUEUE; i++) {
                for (int q = 0; q < QUEUES; q++) {
                    store.send(message(q, body(q, i))).join();
                }
            }
            TestStores.awaitIndexed(store);
            // Lent reads of every queue, many times over: both reader threads reuse their memory again and again.
            for (int round = 0; round < 5; round++) {
                for (int q = 0; q < QUEUES; q++) {
                    final int queue = q;
                    final List<String> lent = store.pullLent(new PullRequest("g", "t", q, 0, PER_QUEUE, null, 0),
                            r -> bodies(r), unclaimed -> { }).get(10, TimeUnit.SECONDS);
                    assertThat(lent).as("lent read of queue %d", queue).isEqualTo(expected(queue));
                }
            }
            // Plain pulls after them get each message's own bytes, however the lent reads went.
            for (int q = 0; q < QUEUES; q++) {
                final PullResult r = store.pull(new PullRequest("g", "t", q, 0, PER_QUEUE, null, 0))
                        .get(10, TimeUnit.SECONDS);
                final List<StoredMessage> kept = r.messages();
                // Another lent read on every reader thread before the kept messages are looked at.
                for (int other = 0; other < QUEUES; other++) {
                    store.pullLent(new PullRequest("g", "t", other, 0, PER_QUEUE, null, 0), LentPullTest::bodies,
                            unclaimed -> { }).get(10, TimeUnit.SECONDS);
                }
                assertThat(kept.stream().map(m -> new String(m.bodyBytes(), StandardCharsets.UTF_8)).toList())
                        .as("messages of queue %d kept past later lent reads", q).isEqualTo(expected(q));
            }
        }
    }

    @Test
    void shouldNeverCallTheReaderOfACancelledLongPoll() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final AtomicInteger readerCalls = new AtomicInteger();
            final AtomicInteger dropped = new AtomicInteger();
            final CompletableFuture<Integer> waiting = store.pullLent(new PullRequest("g", "t", 0, 0, 8, null, 30_000),
                    r -> {
                        readerCalls.incrementAndGet();
                        return r.messages().size();
                    }, unclaimed -> dropped.incrementAndGet());
            Thread.sleep(100);
            assertThat(waiting).isNotDone();
            waiting.cancel(false);
            store.send(message(0, "after the cancel")).join();
            // A live long poll on the same queue is answered: the arrival was seen, and the cancelled one ignored it.
            final PullResult next = store.pull(new PullRequest("g", "t", 0, 0, 8, null, 5_000))
                    .get(10, TimeUnit.SECONDS);
            assertThat(next.status()).isEqualTo(PullStatus.FOUND);
            Thread.sleep(100);
            assertThat(readerCalls).hasValue(0);
            assertThat(dropped).hasValue(0);
        }
    }

    private static List<String> bodies(final PullResult r) {
        final List<String> bodies = new ArrayList<>();
        for (StoredMessage m : r.messages()) {
            bodies.add(new String(m.bodyBytes(), StandardCharsets.UTF_8));
        }
        return bodies;
    }

    private static List<String> expected(final int queue) {
        final List<String> bodies = new ArrayList<>();
        for (int i = 0; i < PER_QUEUE; i++) {
            bodies.add(body(queue, i));
        }
        return bodies;
    }

    private static String body(final int queue, final int i) {
        return "queue " + queue + " message " + i + " " + "x".repeat(100 + i % 50);
    }

    private static Message message(final int queue, final String body) {
        return Message.builder("t").queueId(queue).body(body.getBytes(StandardCharsets.UTF_8)).build();
    }
}
