package io.junction.core.pop;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import io.junction.core.engine.FlushMode;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.TestStores;
import io.junction.core.filter.Filters;
import io.junction.core.filter.MessageFilter;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Groups tracked in place ({@link GroupConfig#IN_PLACE_ATTRIBUTE}), as a JMS queue needs them: a pop's filter takes
 * what it selects and leaves the rest for the group's other pops; a message given back, or not acked in time, is
 * delivered again in its place with one more delivery counted; browsing shows exactly what pops would hand out and
 * changes nothing; all of it survives a restart.
 */
class InPlacePopTest {
    private static final String TOPIC = "queue";
    private static final String GROUP = "queue";

    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

    private MessageStore open(final StoreConfig config) {
        return MessageStore.open(config, now::get, MappedSegmentFile.FACTORY);
    }

    private static void setUp(final MessageStore store, final int messages) {
        store.topics().createOrUpdate(TopicConfig.of(TOPIC, 1)).join();
        store.groups().createOrUpdate(new GroupConfig(GROUP, 16, false, false,
                Map.of(GroupConfig.IN_PLACE_ATTRIBUTE, "true"))).join();
        for (int i = 0; i < messages; i++) {
            store.send(Message.builder(TOPIC).property("n", Integer.toString(i)).body(("m" + i).getBytes()).build())
                    .join();
        }
        TestStores.awaitIndexed(store);
    }

    private static List<PoppedMessage> pop(final MessageStore store, final MessageFilter filter, final int max) {
        return store.pop(new PopRequest(GROUP, TOPIC, filter, max, 60_000, 0)).join().messages();
    }

    private static List<String> bodies(final List<PoppedMessage> popped) {
        return popped.stream().map(m -> TestStores.body(m.message())).toList();
    }

    private static List<String> browse(final MessageStore store, final MessageFilter filter) {
        final List<String> out = new ArrayList<>();
        long[] positions = null;
        while (true) {
            final BrowseResult r = store.browse(new BrowseRequest(GROUP, TOPIC, filter, positions, 3)).join();
            r.messages().stream().map(TestStores::body).forEach(out::add);
            positions = r.positions();
            if (r.end() && r.messages().isEmpty()) {
                return out;
            }
        }
    }

    @Test
    void shouldAnswerAPopBeforeItsCheckpointIsForcedAndKeepTheAckDurableWithIt() {
        // SYNC, and an idle force only every minute: only the ack's fsync can make the checkpoint durable.
        try (MessageStore store = open(TestStores.small(dir).flushMode(FlushMode.SYNC)
                .flushInterval(Duration.ofMinutes(1)).build())) {
            setUp(store, 2);
            final long flushed = store.stats().logFlushedOffset();

            final List<PoppedMessage> popped = pop(store, null, 2);

            assertThat(bodies(popped)).containsExactly("m0", "m1");
            assertThat(store.stats().logFlushedOffset()).as("the pop waited for no fsync").isEqualTo(flushed);
            store.ack(GROUP, popped.get(0).receiptHandle()).join();
            assertThat(store.stats().logFlushedOffset()).as("the ack is forced, and its checkpoint before it")
                    .isGreaterThan(flushed);
        }
    }

    @Test
    void shouldWakeALongPollWhoseMessageCameBackWhileItWasParking() throws Exception {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, 1);
            PoppedMessage held = pop(store, null, 1).get(0);
            for (int i = 0; i < 300; i++) {
                // The long poll finds nothing (the message is held), and races the give-back to its parking: the
                // give-back's wake may come before it parks, when the queue's end has not moved either.
                final CompletableFuture<PopResult> waiting = store.pop(new PopRequest(GROUP, TOPIC, null, 1, 60_000,
                        30_000));
                store.giveBack(GROUP, held.receiptHandle()).join();
                final List<PoppedMessage> got = waiting.get(10, TimeUnit.SECONDS).messages();
                assertThat(bodies(got)).as("round %d", i).containsExactly("m0");
                held = got.get(0);
            }
        }
    }

    @Test
    void shouldLeaveWhatAFilterDoesNotSelectForTheGroupsOtherPops() {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, 10);
            final MessageFilter late = Filters.jmsSelector("n >= 5");
            assertThat(bodies(pop(store, late, 32))).containsExactly("m5", "m6", "m7", "m8", "m9");
            assertThat(pop(store, late, 32)).isEmpty();
            assertThat(bodies(pop(store, null, 32))).containsExactly("m0", "m1", "m2", "m3", "m4");
            assertThat(pop(store, null, 32)).isEmpty();
        }
    }

    @Test
    void shouldDeliverWhatIsGivenBackAgainInItsPlace() {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, 8);
            final List<PoppedMessage> first = pop(store, null, 5);
            assertThat(bodies(first)).containsExactly("m0", "m1", "m2", "m3", "m4");
            store.ack(GROUP, List.of(first.get(0).receiptHandle(), first.get(1).receiptHandle())).join();
            for (PoppedMessage m : first.subList(2, 5)) {
                store.changeInvisibleTime(GROUP, m.receiptHandle(), 0).join();
            }
            final List<PoppedMessage> again = pop(store, null, 32);
            assertThat(bodies(again)).containsExactly("m2", "m3", "m4", "m5", "m6", "m7");
            assertThat(again).extracting(PoppedMessage::reconsumeTimes).containsExactly(1, 1, 1, 0, 0, 0);
            store.ack(GROUP, again.stream().map(PoppedMessage::receiptHandle).toList()).join();
            assertThat(pop(store, null, 32)).isEmpty();
            assertThat(store.queryOffset(GROUP, TOPIC, 0)).as("everything done: the committed offset is the end")
                    .isEqualTo(8);
        }
    }

    @Test
    void shouldRedeliverInPlaceWhenTheInvisibleTimePasses() {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, 3);
            assertThat(bodies(pop(store, null, 2))).containsExactly("m0", "m1");
            now.addAndGet(61_000);
            store.reviveNow();
            final List<PoppedMessage> again = pop(store, null, 32);
            assertThat(bodies(again)).containsExactly("m0", "m1", "m2");
            assertThat(again).extracting(PoppedMessage::reconsumeTimes).containsExactly(1, 1, 0);
        }
    }

    @Test
    void shouldBrowseExactlyWhatPopsWouldHandOutWithoutTakingIt() {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, 7);
            assertThat(browse(store, null)).containsExactly("m0", "m1", "m2", "m3", "m4", "m5", "m6");
            assertThat(browse(store, Filters.jmsSelector("n >= 2 AND n < 4"))).containsExactly("m2", "m3");
            final List<PoppedMessage> taken = pop(store, Filters.jmsSelector("n < 3"), 32);
            assertThat(bodies(taken)).containsExactly("m0", "m1", "m2");
            assertThat(browse(store, null)).as("in flight: not listed").containsExactly("m3", "m4", "m5", "m6");
            store.ack(GROUP, List.of(taken.get(0).receiptHandle())).join();
            store.changeInvisibleTime(GROUP, taken.get(1).receiptHandle(), 0).join();
            assertThat(browse(store, null)).as("given back: listed again, in its place")
                    .containsExactly("m1", "m3", "m4", "m5", "m6");
            final List<PoppedMessage> rest = pop(store, null, 32);
            assertThat(bodies(rest)).containsExactly("m1", "m3", "m4", "m5", "m6");
            assertThat(rest).extracting(PoppedMessage::reconsumeTimes).as("browsing counts no delivery")
                    .containsExactly(1, 0, 0, 0, 0);
        }
    }

    @Test
    void shouldKeepWhatIsDoneAndInFlightAcrossARestart() {
        final StoreConfig config = TestStores.small(dir).build();
        try (MessageStore store = open(config)) {
            setUp(store, 6);
            final List<PoppedMessage> first = pop(store, Filters.jmsSelector("n <> 1"), 3);
            assertThat(bodies(first)).containsExactly("m0", "m2", "m3");
            store.ack(GROUP, List.of(first.get(0).receiptHandle(), first.get(2).receiptHandle())).join();
        }
        try (MessageStore store = open(config)) {
            TestStores.awaitIndexed(store);
            assertThat(browse(store, null)).as("m2 still in flight").containsExactly("m1", "m4", "m5");
            now.addAndGet(61_000);
            store.reviveNow();
            final List<PoppedMessage> after = pop(store, null, 32);
            assertThat(bodies(after)).containsExactly("m1", "m2", "m4", "m5");
            assertThat(after).extracting(PoppedMessage::reconsumeTimes).containsExactly(0, 1, 0, 0);
        }
    }

    @Test
    void shouldFindWhatASelectorWantsBehindThousandsItDoesNot() {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of(TOPIC, 1)).join();
            store.groups().createOrUpdate(new GroupConfig(GROUP, 16, false, false,
                    Map.of(GroupConfig.IN_PLACE_ATTRIBUTE, "true"))).join();
            final int others = PopService.IN_PLACE_SCAN_LIMIT + 500;
            for (int i = 0; i < others + 3; i++) {
                store.send(Message.builder(TOPIC).property("kind", i < others ? "other" : "wanted")
                        .body(("m" + i).getBytes()).build()).join();
            }
            TestStores.awaitIndexed(store);
            final List<PoppedMessage> wanted = popUntilFound(store, Filters.jmsSelector("kind = 'wanted'"));
            assertThat(bodies(wanted)).containsExactly("m" + others, "m" + (others + 1), "m" + (others + 2));
            for (PoppedMessage m : wanted) {
                store.changeInvisibleTime(GROUP, m.receiptHandle(), 0).join();
            }
            // a new consumer with the same selector finds them again behind everything the first one passed over
            final List<PoppedMessage> again = popUntilFound(store, Filters.jmsSelector("kind = 'wanted'"));
            assertThat(bodies(again)).containsExactly("m" + others, "m" + (others + 1), "m" + (others + 2));
            assertThat(bodies(pop(store, null, 3))).as("the others are still there, from the oldest")
                    .containsExactly("m0", "m1", "m2");
        }
    }

    /** Pops with one filter until it gets something; a pop reads a bounded number of messages. */
    private static List<PoppedMessage> popUntilFound(final MessageStore store, final MessageFilter filter) {
        for (int attempt = 0; attempt < 5; attempt++) {
            final List<PoppedMessage> got = pop(store, filter, 32);
            if (!got.isEmpty()) {
                return got;
            }
        }
        return List.of();
    }

    @Test
    void shouldNotAffectStoredMessagesWhenBrowsing() {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, 2);
            browse(store, null);
            final List<StoredMessage> all = TestStores.readAll(store, TOPIC, 0);
            assertThat(all).hasSize(2);
            assertThat(bodies(pop(store, null, 32))).containsExactly("m0", "m1");
        }
    }
}
