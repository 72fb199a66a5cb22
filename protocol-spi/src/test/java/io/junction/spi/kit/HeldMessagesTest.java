package io.junction.spi.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.message.Message;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link HeldMessages} over a real store whose clock the test moves. */
class HeldMessagesTest {
    private static final String TOPIC = "t";
    private static final String GROUP = "g";
    private static final long INVISIBLE = 30_000;

    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final Set<String> offline = new HashSet<>();
    private MessageStore store;
    private HeldMessages<String> held;

    @BeforeEach
    void open() {
        store = MessageStore.open(TestStores.small(dir).build(), now::get, MappedSegmentFile.FACTORY);
        store.topics().createOrUpdate(TopicConfig.of(TOPIC, 1)).join();
        store.groups().createOrUpdate(new GroupConfig(GROUP, 16, false, false,
                Map.of("retry.backoff", "5s 1m"))).join();
        held = new HeldMessages<>(store, owner -> !offline.contains(owner), now::get);
    }

    @AfterEach
    void close() {
        held.close();
        store.close();
    }

    private List<PoppedMessage> sendAndPop(final int count) {
        for (int i = 0; i < count; i++) {
            store.send(Message.builder(TOPIC).body(("m" + i).getBytes()).build()).join();
        }
        TestStores.awaitIndexed(store);
        return pop(count);
    }

    private List<PoppedMessage> pop(final int max) {
        return store.pop(new PopRequest(GROUP, TOPIC, null, max, INVISIBLE, 0)).join().messages();
    }

    /** Lets time pass and the core bring back what is overdue. */
    private void pass(final long millis) {
        now.addAndGet(millis);
        store.reviveNow();
        TestStores.awaitIndexed(store);
    }

    @Test
    void shouldRenewWhenAThirdOfTheInvisibleTimeIsLeftAndAckWithTheFirstHandle() {
        final String first = sendAndPop(1).get(0).receiptHandle();
        held.hold("c1", GROUP, first, INVISIBLE, true);
        now.addAndGet(19_000);
        held.renewDue().join();
        now.addAndGet(1_000);
        held.renewDue().join();
        pass(INVISIBLE - 20_000 + 1);
        assertThat(pop(1)).as("renewed: not redelivered at its first deadline").isEmpty();
        held.ack(GROUP, first).join();
        assertThat(held.size()).isZero();
        assertThat(store.inFlight()).isZero();
    }

    @Test
    void shouldNotRenewForAnOfflineOwnerAndLetGoOnceItsTimeIsUp() {
        offline.add("c1");
        final String first = sendAndPop(1).get(0).receiptHandle();
        held.hold("c1", GROUP, first, INVISIBLE, true);
        now.addAndGet(INVISIBLE - 1_000);
        held.renewDue().join();
        assertThat(held.size()).isEqualTo(1);
        pass(1_000);
        held.renewDue().join();
        assertThat(held.size()).isZero();
        assertThat(pop(1)).extracting(PoppedMessage::reconsumeTimes).as("redelivered, counted").containsExactly(1);
    }

    @Test
    void shouldGiveAnOwnersMessagesBackAtOnceUncounted() {
        final List<PoppedMessage> popped = sendAndPop(3);
        held.hold("c1", GROUP, popped.get(0).receiptHandle(), INVISIBLE, true);
        held.hold("c1", GROUP, popped.get(1).receiptHandle(), INVISIBLE, false);
        held.hold("c2", GROUP, popped.get(2).receiptHandle(), INVISIBLE, true);
        held.giveBackAll("c1").join();
        held.pending().join();
        assertThat(held.size()).isEqualTo(1);
        TestStores.awaitIndexed(store);
        final List<PoppedMessage> again = pop(32);
        assertThat(again).extracting(m -> TestStores.body(m.message())).containsExactlyInAnyOrder("m0", "m1");
        assertThat(again).extracting(PoppedMessage::reconsumeTimes).containsOnly(0);
    }

    @Test
    void shouldGiveBackARenewedMessageUnderItsLatestHandle() {
        final String first = sendAndPop(1).get(0).receiptHandle();
        held.hold("c1", GROUP, first, INVISIBLE, true);
        now.addAndGet(25_000);
        held.renewDue().join();
        held.giveBack(GROUP, first).join();
        TestStores.awaitIndexed(store);
        assertThat(pop(1)).extracting(PoppedMessage::reconsumeTimes).containsExactly(0);
    }

    @Test
    void shouldCountANackAndRedeliverAfterTheBackOff() {
        final String first = sendAndPop(1).get(0).receiptHandle();
        held.hold("c1", GROUP, first, INVISIBLE, true);
        held.nack(GROUP, first).join();
        assertThat(held.size()).isZero();
        pass(4_000);
        assertThat(pop(1)).isEmpty();
        pass(2_000);
        assertThat(pop(1)).extracting(PoppedMessage::reconsumeTimes).containsExactly(1);
    }

    @Test
    void shouldKeepHoldingAnExtendedMessageUnderItsFirstHandle() {
        final String first = sendAndPop(1).get(0).receiptHandle();
        held.hold("sub", GROUP, first, INVISIBLE, false);
        final String extended = held.extend(GROUP, first, 120_000).join();
        assertThat(extended).isNotEqualTo(first);
        assertThat(held.size()).isEqualTo(1);
        pass(INVISIBLE + 1);
        assertThat(pop(1)).as("extended past its first deadline").isEmpty();
        held.deadLetter(GROUP, first).join();
        assertThat(store.inFlight()).isZero();
    }

    @Test
    void shouldActOnAHandleItDoesNotHoldAsGiven() {
        final List<PoppedMessage> popped = sendAndPop(2);
        held.ack(GROUP, popped.get(0).receiptHandle()).join();
        final String later = held.changeInvisibleTime(GROUP, popped.get(1).receiptHandle(), 60_000).join();
        assertThatThrownBy(() -> held.ack(GROUP, popped.get(1).receiptHandle()).join())
                .satisfies(e -> assertThat(StoreException.errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT));
        held.ack(GROUP, later).join();
        assertThat(store.inFlight()).isZero();
    }

    @Test
    void shouldStopRenewingAfterTheLongestHold() {
        final String first = sendAndPop(1).get(0).receiptHandle();
        held.hold("c1", GROUP, first, INVISIBLE, true);
        for (long t = 0; t < HeldMessages.MAX_HOLD_MILLIS + 2 * INVISIBLE; t += 5_000) {
            now.addAndGet(5_000);
            held.renewDue().join();
        }
        assertThat(held.size()).isZero();
        pass(1);
        assertThat(pop(1)).as("back once its last renewal ran out").hasSize(1);
    }
}
