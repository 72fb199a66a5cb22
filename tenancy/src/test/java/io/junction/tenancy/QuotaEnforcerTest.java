package io.junction.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class QuotaEnforcerTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final Map<String, Quota> quotas = Map.of("acme", new Quota(10, 1000, 2), "tiny", new Quota(0, 100, 0));
    private final QuotaEnforcer enforcer = new QuotaEnforcer(quotas::get, now::get);

    @Test
    void aFullSecondsBurstPassesThenTheRateHolds() {
        int admitted = 0;
        for (int i = 0; i < 25; i++) {
            if (enforcer.admitPublish("acme", 1, 10).admitted()) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(10);
        final QuotaEnforcer.Admission refused = enforcer.admitPublish("acme", 1, 10);
        assertThat(refused.admitted()).isFalse();
        assertThat(refused.retryAfterMillis()).isEqualTo(100); // one message's worth at 10/s
        now.addAndGet(500_000_000L);
        admitted = 0;
        for (int i = 0; i < 25; i++) {
            if (enforcer.admitPublish("acme", 1, 10).admitted()) {
                admitted++;
            }
        }
        assertThat(admitted).as("half a second refills half the bucket").isEqualTo(5);
    }

    @Test
    void bytesAreLimitedAndABigMessageRunsIntoDebtInsteadOfStarving() {
        assertThat(enforcer.admitPublish("tiny", 1, 500).admitted()).as("bigger than a second, bucket full")
                .isTrue();
        final QuotaEnforcer.Admission next = enforcer.admitPublish("tiny", 1, 10);
        assertThat(next.admitted()).isFalse();
        assertThat(next.retryAfterMillis()).isEqualTo(4_100); // 400 bytes of debt plus 10 at 100 B/s
        now.addAndGet(4_100_000_000L);
        assertThat(enforcer.admitPublish("tiny", 1, 10).admitted()).isTrue();
    }

    @Test
    void namespacesWithoutQuotaAreUnlimited() {
        for (int i = 0; i < 100_000; i++) {
            assertThat(enforcer.admitPublish("globex", 1, 1_000_000).admitted()).isTrue();
        }
    }

    @Test
    void connectionsAreCountedPerNamespace() {
        assertThat(enforcer.connectionOpened("acme")).isTrue();
        assertThat(enforcer.connectionOpened("acme")).isTrue();
        assertThat(enforcer.connectionOpened("acme")).isFalse();
        assertThat(enforcer.openConnections("acme")).isEqualTo(2);
        assertThat(enforcer.connectionOpened("globex")).isTrue();
        enforcer.connectionClosed("acme");
        assertThat(enforcer.connectionOpened("acme")).isTrue();
    }
}
