package io.junction.core.engine;

import static io.junction.core.engine.TestStores.body;
import static io.junction.core.engine.TestStores.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.SendResult;
import io.junction.core.meta.TopicConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A quiet store indexes a record on the thread that made it visible (the appender in ASYNC mode, the flusher in SYNC
 * mode) instead of handing it to the dispatcher's thread: the sender is answered, and the long poll waiting for the
 * record woken, with one thread hand-over less. What is checked is the outcome (every send answered visible, every
 * parked pull answered with the next message in order) and which thread answered the sends, not how fast.
 */
class WriterThreadIndexingTest {
    private static final int ROUNDS = 40;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(FlushMode.class)
    void shouldAnswerSendsOnTheWritingThreadWhenItIsIdleAndStillWakeTheParkedPull(final FlushMode mode) {
        final String writer = mode == FlushMode.ASYNC ? "junction-log-appender" : "junction-log-flusher";
        try (MessageStore store = MessageStore.open(TestStores.small(dir).flushMode(mode).build())) {
            store.topics().createIfAbsent(TopicConfig.of("t", 1)).join();
            final List<String> sendThreads = new ArrayList<>();
            final List<String> received = new ArrayList<>();
            final List<String> unseen = new ArrayList<>();
            for (int i = 0; i < ROUNDS; i++) {
                final long offset = store.maxOffset("t", 0);
                final CompletableFuture<PullResult> pull = store.pull(new PullRequest("g", "t", 0, offset, 32, null,
                        60_000));
                final CompletableFuture<SendResult> send = store.send(text("t", "m-" + i));
                final CompletableFuture<String> sentOn = send.thenApply(r -> Thread.currentThread().getName());
                final SendResult sent = send.join();
                if (store.maxOffset("t", 0) <= sent.queueOffset()) {
                    unseen.add("m-" + i);
                }
                final PullResult r = pull.join();
                assertThat(r.status()).isEqualTo(PullStatus.FOUND);
                r.messages().forEach(m -> received.add(body(m)));
                sendThreads.add(sentOn.join());
            }
            final List<String> expected = new ArrayList<>();
            for (int i = 0; i < ROUNDS; i++) {
                expected.add("m-" + i);
            }
            assertThat(unseen).as("acknowledged but not yet readable").isEmpty();
            assertThat(received).as("each parked pull got the next message, in order").isEqualTo(expected);
            // Now and then the dispatcher's own thread (its periodic look) gets to a record first: most, not all.
            // A send acknowledged before the test could look (its callback then runs on this thread) tells nothing.
            final List<String> seen = sendThreads.stream().filter(t -> !t.equals(Thread.currentThread().getName()))
                    .toList();
            assertThat(seen.stream().filter(writer::equals).count())
                    .as("sends acknowledged on %s: %s", writer, sendThreads)
                    .isGreaterThanOrEqualTo((seen.size() + 1) / 2);
        }
    }
}
