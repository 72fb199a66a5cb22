package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReceiptRenewalsTest {
    private final FakeMessaging fake = new FakeMessaging();
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final Set<String> offline = new HashSet<>();
    private final ReceiptRenewals renewals = new ReceiptRenewals(fake.messaging(), id -> !offline.contains(id),
            now::get);

    @Test
    void shouldRenewWhenAThirdOfTheInvisibleTimeIsLeft() {
        renewals.track("c1", "g", "h1", 30_000);
        now.addAndGet(19_000);
        renewals.renewDue();
        assertThat(fake.invisibilityChanges).isEmpty();
        now.addAndGet(1_000);
        renewals.renewDue();
        assertThat(fake.invisibilityChanges).containsExactly("h1@30000");
        // renewed to now + 30 s: nothing more until 20 s later
        now.addAndGet(19_000);
        renewals.renewDue();
        assertThat(fake.invisibilityChanges).hasSize(1);
        now.addAndGet(1_000);
        renewals.renewDue();
        assertThat(fake.invisibilityChanges).containsExactly("h1@30000", "h1+@30000");
    }

    @Test
    void shouldHandTheLatestHandleOnReleaseAndStopRenewing() {
        renewals.track("c1", "g", "h1", 10_000);
        now.addAndGet(8_000);
        renewals.renewDue();
        assertThat(renewals.release("h1").join()).isEqualTo("h1+");
        assertThat(renewals.size()).isZero();
        now.addAndGet(9_000);
        renewals.renewDue();
        assertThat(fake.invisibilityChanges).hasSize(1);
        // a handle never tracked (a simple consumer's) is used as given
        assertThat(renewals.release("other").join()).isEqualTo("other");
    }

    @Test
    void shouldNotRenewForAnOfflineClientAndDropTheMessageOnceItsTimeIsUp() {
        offline.add("c1");
        renewals.track("c1", "g", "h1", 10_000);
        now.addAndGet(9_000);
        renewals.renewDue();
        assertThat(fake.invisibilityChanges).isEmpty();
        assertThat(renewals.size()).isEqualTo(1);
        now.addAndGet(1_000);
        renewals.renewDue();
        assertThat(renewals.size()).isZero();
    }

    @Test
    void shouldGiveATerminatedClientsMessagesBackAtOnce() {
        renewals.track("c1", "g", "h1", 60_000);
        renewals.track("c1", "g", "h2", 60_000);
        renewals.track("c2", "g", "h3", 60_000);
        renewals.releaseClient("c1");
        assertThat(fake.invisibilityChanges).containsExactlyInAnyOrder("h1@0", "h2@0");
        assertThat(renewals.size()).isEqualTo(1);
    }

    @Test
    void shouldStopRenewingAfterTheLongestHold() {
        renewals.track("c1", "g", "h1", 60_000);
        for (long t = 0; t < ReceiptRenewals.MAX_HOLD_MILLIS + 60_000; t += 10_000) {
            now.addAndGet(10_000);
            renewals.renewDue();
        }
        assertThat(renewals.size()).isZero();
        assertThat(fake.invisibilityChanges).hasSizeLessThanOrEqualTo(
                (int) (ReceiptRenewals.MAX_HOLD_MILLIS / 40_000) + 1);
    }
}
