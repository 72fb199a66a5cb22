package io.junction.remoting.reply;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PendingRequestsTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final PendingRequests pending = new PendingRequests(now::get);

    @Test
    void shouldGiveARequesterOnceUntilItsTimeToLivePassed() {
        final EmbeddedChannel channel = new EmbeddedChannel();
        pending.add("c1", "client-a", channel, "5000");
        pending.add("c2", "client-a", channel, "5000");
        pending.add("c3", "client-a", channel, null);
        assertThat(pending.take("c1")).extracting(PendingRequests.Requester::clientId).isEqualTo("client-a");
        assertThat(pending.take("c1")).as("taken already").isNull();
        now.addAndGet(5000 + 999);
        assertThat(pending.take("c2")).as("within its grace").isNotNull();
        now.addAndGet(2000);
        assertThat(pending.take("c3")).as("the 3 s default has passed").isNull();
        assertThat(pending.take("unknown")).isNull();
        assertThat(pending.take(null)).isNull();
    }

    @Test
    void shouldForgetRequestersWhoseConnectionClosed() {
        final EmbeddedChannel channel = new EmbeddedChannel();
        pending.add("c1", "client-a", channel, "60000");
        channel.close();
        assertThat(pending.take("c1")).isNull();
    }
}
