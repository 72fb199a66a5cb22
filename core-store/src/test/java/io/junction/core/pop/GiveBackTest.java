package io.junction.core.pop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
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
 * {@code giveBack}: a message returned unconsumed is available to the group again at once, with its delivery count
 * unchanged (unlike a {@code changeInvisibleTime} to 0 or a nack), in every kind of group and across a restart.
 */
class GiveBackTest {
    private static final String TOPIC = "t";
    private static final String GROUP = "g";
    private static final long INVISIBLE = 60_000;

    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

    private MessageStore open(final StoreConfig config) {
        return MessageStore.open(config, now::get, MappedSegmentFile.FACTORY);
    }

    private static void setUp(final MessageStore store, final Map<String, String> groupAttributes, final boolean fifo,
                              final int messages) {
        store.topics().createOrUpdate(TopicConfig.of(TOPIC, 1)).join();
        store.groups().createOrUpdate(new GroupConfig(GROUP, 2, fifo, false, groupAttributes)).join();
        for (int i = 0; i < messages; i++) {
            final Message.Builder b = Message.builder(TOPIC).queueId(0).body(("m" + i).getBytes());
            store.send((fifo ? b.property(MessageProperties.MESSAGE_GROUP, "k") : b).build()).join();
        }
        TestStores.awaitIndexed(store);
    }

    private static List<PoppedMessage> pop(final MessageStore store, final int max) {
        return store.pop(new PopRequest(GROUP, TOPIC, null, max, INVISIBLE, 0)).join().messages();
    }

    private static List<String> bodies(final List<PoppedMessage> popped) {
        return popped.stream().map(m -> TestStores.body(m.message())).toList();
    }

    /** Gives the message back and pops it again, {@code times} times; returns the last pop. */
    private static List<PoppedMessage> giveBackAndPop(final MessageStore store, final int times) {
        List<PoppedMessage> popped = pop(store, 1);
        for (int i = 0; i < times; i++) {
            store.giveBack(GROUP, popped.get(0).receiptHandle()).join();
            TestStores.awaitIndexed(store);
            popped = pop(store, 1);
        }
        return popped;
    }

    @Test
    void shouldMakeANormalGroupsMessageAvailableAtOnceWithItsCountUnchanged() {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, Map.of(), false, 1);
            // More give-backs than the group's maximum of deliveries (2): none of them counts.
            final List<PoppedMessage> again = giveBackAndPop(store, 5);
            assertThat(bodies(again)).containsExactly("m0");
            assertThat(again.get(0).reconsumeTimes()).isZero();
            assertThat(again.get(0).topic()).isEqualTo(TOPIC);
            assertThat(TestStores.readAll(store, SystemNames.deadLetterTopic(GROUP), 0)).isEmpty();
            store.ack(GROUP, again.get(0).receiptHandle()).join();
            assertThat(store.inFlight()).isZero();
        }
    }

    @Test
    void shouldCountWhatAnInvisibleTimeOfZeroGivesBack() {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, Map.of(), false, 1);
            final PoppedMessage first = pop(store, 1).get(0);
            store.changeInvisibleTime(GROUP, first.receiptHandle(), 0).join();
            store.reviveNow();
            TestStores.awaitIndexed(store);
            assertThat(pop(store, 1)).extracting(PoppedMessage::reconsumeTimes).containsExactly(1);
        }
    }

    @Test
    void shouldReleaseAnInPlaceGroupsMessageInItsPlaceWithItsCountUnchanged() {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, Map.of(GroupConfig.IN_PLACE_ATTRIBUTE, "true"), false, 3);
            final List<PoppedMessage> first = pop(store, 2);
            store.giveBack(GROUP, first.get(0).receiptHandle()).join();
            store.changeInvisibleTime(GROUP, first.get(1).receiptHandle(), 0).join();
            final List<PoppedMessage> again = pop(store, 32);
            assertThat(bodies(again)).containsExactly("m0", "m1", "m2");
            assertThat(again).extracting(PoppedMessage::reconsumeTimes).as("given back, counted, new")
                    .containsExactly(0, 1, 0);
        }
    }

    @Test
    void shouldReleaseAFifoGroupsMessageInItsPlaceWithItsCountUnchanged() {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, Map.of(), true, 2);
            final List<PoppedMessage> again = giveBackAndPop(store, 4);
            assertThat(bodies(again)).as("still first of its message group").containsExactly("m0");
            assertThat(again.get(0).reconsumeTimes()).isZero();
            assertThat(TestStores.readAll(store, SystemNames.deadLetterTopic(GROUP), 0)).isEmpty();
        }
    }

    @Test
    void shouldFindAMessageGivenBackAvailableAfterARestart() {
        final StoreConfig config = TestStores.small(dir).build();
        try (MessageStore store = open(config)) {
            setUp(store, Map.of(GroupConfig.IN_PLACE_ATTRIBUTE, "true"), false, 2);
            final List<PoppedMessage> first = pop(store, 2);
            store.giveBack(GROUP, first.get(0).receiptHandle()).join();
        }
        try (MessageStore store = open(config)) {
            TestStores.awaitIndexed(store);
            final List<PoppedMessage> again = pop(store, 32);
            assertThat(bodies(again)).as("m1 is still in flight").containsExactly("m0");
            assertThat(again.get(0).reconsumeTimes()).isZero();
        }
    }

    @Test
    void shouldRefuseAHandleThatNoLongerWorks() {
        try (MessageStore store = open(TestStores.small(dir).build())) {
            setUp(store, Map.of(), false, 1);
            final PoppedMessage m = pop(store, 1).get(0);
            store.giveBack(GROUP, m.receiptHandle()).join();
            assertThatThrownBy(() -> store.giveBack(GROUP, m.receiptHandle()).join())
                    .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT));
            assertThatThrownBy(() -> store.ack(GROUP, m.receiptHandle()).join())
                    .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT));
            assertThatThrownBy(() -> store.giveBack("other", m.receiptHandle()).join())
                    .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT));
        }
    }
}
