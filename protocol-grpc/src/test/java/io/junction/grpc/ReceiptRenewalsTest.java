package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Renewals over a real store driven by the test's clocks: a renewal is seen in the store (the message stays invisible
 * past its first deadline, the first handle stops working, the latest one acks), and a message no longer renewed
 * comes back to the group. The store's own reviver runs once an hour, so within a test only {@code reviveNow} brings
 * messages back.
 */
class ReceiptRenewalsTest {
    private static final long START = 1_000_000;
    private static final String GROUP = "g";

    @TempDir
    Path dir;
    /** The store's clock. */
    private final AtomicLong storeNow = new AtomicLong(START);
    /** The renewals' clock: the store's, except while a pass looks ahead ({@link #dueAt}). */
    private final AtomicLong now = new AtomicLong(START);
    private final Set<String> offline = new HashSet<>();
    /** While set, clients count as offline, so a pass only shows which messages are due (by {@link #dueChecks}). */
    private boolean probing;
    /** How often a pass found a message due with its latest handle known (the client's state is asked then only). */
    private final AtomicInteger dueChecks = new AtomicInteger();
    private MessageStore store;
    private ReceiptRenewals renewals;

    @BeforeEach
    void open() {
        store = MessageStore.open(TestStores.small(dir).popReviveInterval(Duration.ofHours(1)).build(),
                storeNow::get, MappedSegmentFile.FACTORY);
        store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
        // In-place: a message given back is available again at once, where it was.
        store.groups().createOrUpdate(new GroupConfig(GROUP, 16, false, false,
                Map.of(GroupConfig.IN_PLACE_ATTRIBUTE, "true"))).join();
        renewals = new ReceiptRenewals(store, id -> {
            dueChecks.incrementAndGet();
            return !probing && !offline.contains(id);
        }, now::get);
    }

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    /** Sends {@code count} messages and pops them with {@code invisibleMillis}; their handles in body order. */
    private List<String> popped(final int count, final long invisibleMillis) {
        for (int i = 0; i < count; i++) {
            store.send(TestStores.text("t", "m" + i)).join();
        }
        TestStores.awaitIndexed(store);
        final List<String> handles = new ArrayList<>();
        for (PoppedMessage m : pop(invisibleMillis)) {
            handles.add(m.receiptHandle());
        }
        assertThat(handles).hasSize(count);
        return handles;
    }

    private List<PoppedMessage> pop(final long invisibleMillis) {
        return store.pop(new PopRequest(GROUP, "t", null, 8, invisibleMillis, 0)).join().messages();
    }

    private void at(final long millisAfterStart) {
        storeNow.set(START + millisAfterStart);
        now.set(START + millisAfterStart);
    }

    /** {@link #due} at a later time of the renewals' clock, the store's clock staying where it is. */
    private boolean dueAt(final long millisAfterStart) {
        now.set(START + millisAfterStart);
        try {
            return due();
        } finally {
            now.set(storeNow.get());
        }
    }

    /** Whether a pass at the current time finds a tracked message due for renewal; renews nothing. */
    private boolean due() {
        probing = true;
        final int before = dueChecks.get();
        renewals.renewDue();
        probing = false;
        return dueChecks.get() > before;
    }

    /**
     * Waits until a pass at a later time finds a message due: a renewal still running is skipped until the store has
     * answered it, so this is also how a test knows the renewal is done before it moves the store's clock on.
     */
    private void awaitDueAt(final long millisAfterStart) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!dueAt(millisAfterStart)) {
            assertThat(System.nanoTime()).as("due in time").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    /** Polls the group until {@code count} messages are deliverable again (or the deadline passes). */
    private List<String> awaitRedelivered(final int count) throws InterruptedException {
        final List<String> bodies = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (bodies.size() < count && System.nanoTime() < deadline) {
            store.reviveNow();
            pop(60_000).forEach(m -> bodies.add(TestStores.body(m.message())));
            if (bodies.size() < count) {
                Thread.sleep(10);
            }
        }
        return bodies;
    }

    @Test
    void shouldRenewWhenAThirdOfTheInvisibleTimeIsLeft() throws Exception {
        final String first = popped(1, 30_000).get(0);
        renewals.track("c1", GROUP, first, 30_000);
        at(19_000);
        assertThat(due()).as("11 s left of 30").isFalse();
        at(20_000);
        renewals.renewDue(); // 10 s left: renewed to 50 s
        awaitDueAt(40_000);
        assertThat(dueAt(39_000)).as("the renewal moved the deadline to 50 s").isFalse();
        at(40_000);
        renewals.renewDue(); // renewed again, to 70 s
        final String latest = renewals.release(first).join();
        assertThat(latest).isNotEqualTo(first);
        at(51_000);
        assertThat(store.reviveNow()).as("still invisible past both earlier deadlines").isZero();
        assertThatThrownBy(() -> store.ack(GROUP, first).join()).as("a renewal retires the handle it renewed");
        store.ack(GROUP, latest).join();
        assertThat(store.inFlight()).isZero();
    }

    @Test
    void shouldHandTheLatestHandleOnReleaseAndStopRenewing() throws Exception {
        final String first = popped(1, 10_000).get(0);
        renewals.track("c1", GROUP, first, 10_000);
        at(8_000);
        renewals.renewDue();
        final String latest = renewals.release(first).join();
        assertThat(latest).isNotEqualTo(first);
        assertThat(renewals.size()).isZero();
        at(17_000);
        assertThat(due()).isFalse();
        at(18_001);
        assertThat(awaitRedelivered(1)).as("no longer renewed: back after the last renewal's 10 s")
                .containsExactly("m0");
        // a handle never tracked (a simple consumer's) is used as given
        assertThat(renewals.release("other").join()).isEqualTo("other");
    }

    @Test
    void shouldNotRenewForAnOfflineClientAndDropTheMessageOnceItsTimeIsUp() throws Exception {
        offline.add("c1");
        final String first = popped(1, 10_000).get(0);
        renewals.track("c1", GROUP, first, 10_000);
        at(9_000);
        renewals.renewDue();
        assertThat(renewals.size()).isEqualTo(1);
        at(10_000);
        renewals.renewDue();
        assertThat(renewals.size()).isZero();
        assertThat(renewals.release(first).join()).isEqualTo(first);
        at(10_001);
        assertThat(awaitRedelivered(1)).as("never renewed: back when its own time is up").containsExactly("m0");
    }

    @Test
    void shouldGiveATerminatedClientsMessagesBackAtOnce() throws Exception {
        final List<String> handles = popped(3, 60_000);
        renewals.track("c1", GROUP, handles.get(0), 60_000);
        renewals.track("c1", GROUP, handles.get(1), 60_000);
        renewals.track("c2", GROUP, handles.get(2), 60_000);
        renewals.releaseClient("c1");
        assertThat(renewals.size()).isEqualTo(1);
        assertThat(awaitRedelivered(2)).containsExactlyInAnyOrder("m0", "m1");
        assertThat(pop(60_000)).as("c2's message stays with c2").isEmpty();
        store.ack(GROUP, handles.get(2)).join();
    }

    @Test
    void shouldStopRenewingAfterTheLongestHold() throws Exception {
        final long hour = 3_600_000;
        final String first = popped(1, hour).get(0);
        renewals.track("c1", GROUP, first, hour);
        // Due a third of an hour before each deadline: at 40, 80, 120 and 160 minutes.
        for (long renewAt = 2 * hour / 3; renewAt < ReceiptRenewals.MAX_HOLD_MILLIS; renewAt += 2 * hour / 3) {
            awaitDueAt(renewAt); // and the previous renewal has been answered
            at(renewAt);
            renewals.renewDue();
        }
        // Three hours on (the store's clock still at the last renewal): dropped once that renewal is answered.
        now.set(START + ReceiptRenewals.MAX_HOLD_MILLIS);
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (renewals.size() > 0 && System.nanoTime() < deadline) {
            renewals.renewDue();
            Thread.sleep(5);
        }
        assertThat(renewals.size()).isZero();
        at(ReceiptRenewals.MAX_HOLD_MILLIS);
        assertThat(store.reviveNow()).as("the last renewal still holds it").isZero();
        at(8 * hour / 3 + hour + 1);
        assertThat(awaitRedelivered(1)).containsExactly("m0");
    }
}
