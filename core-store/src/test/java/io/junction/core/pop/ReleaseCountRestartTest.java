package io.junction.core.pop;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.SystemNames;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.TestStores;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A message released in its place (FIFO and in-place groups) keeps the deliveries counted so far across a restart,
 * also once the checkpoint that counted them is closed and the revive position moved past it: a message that keeps
 * failing goes to the dead-letter topic after the group's maximum, restarts or not.
 */
class ReleaseCountRestartTest {
    private static final String TOPIC = "t";
    private static final String GROUP = "g";
    private static final int MAX_RECONSUME = 2;
    private static final long INVISIBLE = 60_000;

    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

    private MessageStore open(final StoreConfig config) {
        final MessageStore store = MessageStore.open(config, now::get, MappedSegmentFile.FACTORY);
        TestStores.awaitIndexed(store);
        return store;
    }

    private static void setUp(final MessageStore store, final Map<String, String> attributes, final boolean fifo) {
        store.topics().createOrUpdate(TopicConfig.of(TOPIC, 1)).join();
        store.groups().createOrUpdate(new GroupConfig(GROUP, MAX_RECONSUME, fifo, false, attributes)).join();
        for (int i = 0; i < 2; i++) {
            final Message.Builder b = Message.builder(TOPIC).queueId(0).body(("m" + i).getBytes());
            store.send((fifo ? b.property(MessageProperties.MESSAGE_GROUP, "k") : b).build()).join();
        }
        TestStores.awaitIndexed(store);
    }

    private static List<PoppedMessage> pop(final MessageStore store) {
        return store.pop(new PopRequest(GROUP, TOPIC, null, 1, INVISIBLE, 0)).join().messages();
    }

    /** A negative acknowledgement that counts: visible again at once, released in place by the reviver. */
    private static void nackNow(final MessageStore store, final PoppedMessage m) {
        store.changeInvisibleTime(GROUP, m.receiptHandle(), 0).join();
        store.reviveNow();
        TestStores.awaitIndexed(store);
    }

    private void shouldKeepTheCountAcrossRestartsAndDeadLetterAtTheLimit(final Map<String, String> attributes,
                                                                         final boolean fifo) {
        final StoreConfig config = TestStores.small(dir).build();
        try (MessageStore store = open(config)) {
            setUp(store, attributes, fifo);
        }
        for (int attempt = 0; attempt <= MAX_RECONSUME; attempt++) {
            try (MessageStore store = open(config)) {
                final List<PoppedMessage> popped = pop(store);
                assertThat(popped).extracting(m -> TestStores.body(m.message())).containsExactly("m0");
                assertThat(popped.get(0).reconsumeTimes()).as("deliveries counted before this restart")
                        .isEqualTo(attempt);
                nackNow(store, popped.get(0));
                assertThat(store.inFlight()).isZero();
            }
        }
        try (MessageStore store = open(config)) {
            assertThat(TestStores.readAll(store, SystemNames.deadLetterTopic(GROUP), 0))
                    .extracting(TestStores::body).containsExactly("m0");
            final List<PoppedMessage> next = pop(store);
            assertThat(next).extracting(m -> TestStores.body(m.message())).containsExactly("m1");
            assertThat(next.get(0).reconsumeTimes()).isZero();
        }
    }

    @Test
    void shouldKeepAnInPlaceGroupsCountAcrossRestartsAndDeadLetterAtTheLimit() {
        shouldKeepTheCountAcrossRestartsAndDeadLetterAtTheLimit(Map.of(GroupConfig.IN_PLACE_ATTRIBUTE, "true"), false);
    }

    @Test
    void shouldKeepAFifoGroupsCountAcrossRestartsAndDeadLetterAtTheLimit() {
        shouldKeepTheCountAcrossRestartsAndDeadLetterAtTheLimit(Map.of(), true);
    }

    @Test
    void shouldKeepTheCountOfAMessageGivenBackAfterACountedRelease() {
        final StoreConfig config = TestStores.small(dir).build();
        try (MessageStore store = open(config)) {
            setUp(store, Map.of(GroupConfig.IN_PLACE_ATTRIBUTE, "true"), false);
            nackNow(store, pop(store).get(0));
            final PoppedMessage again = pop(store).get(0);
            assertThat(again.reconsumeTimes()).isEqualTo(1);
            store.giveBack(GROUP, again.receiptHandle()).join();
        }
        try (MessageStore store = open(config)) {
            final List<PoppedMessage> popped = pop(store);
            assertThat(popped).extracting(m -> TestStores.body(m.message())).containsExactly("m0");
            assertThat(popped.get(0).reconsumeTimes()).as("the count the give-back left unchanged").isEqualTo(1);
        }
    }
}
