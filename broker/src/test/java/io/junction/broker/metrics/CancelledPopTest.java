package io.junction.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.message.Message;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pop its caller cancels (an AMQP link that ended, a client that left) at any moment, through the metrics wrapper
 * the front-ends use: what it took is the group's again at once, never held until its invisible time. The cancel
 * lands before, during or after the core hands the messages over, so each round sends one message, cancels a pop
 * of it at once and pops again with a short wait, far below the invisible time.
 */
class CancelledPopTest {
    private static final String TOPIC = "orders";
    private static final String GROUP = "billing";
    private static final long INVISIBLE_MS = 120_000;
    private static final int ROUNDS = 300;

    @TempDir
    Path dir;

    @Test
    void whatACancelledPopTookComesBackAtOnce() throws Exception {
        try (MessageStore store = MessageStore.open(StoreConfig.builder(dir).segmentSize(1 << 24).build());
             BrokerObservability observability = new BrokerObservability(BrokerMetrics.create(), store,
                     new BrokerObservability.Settings(true, 100, 100, 100, 60_000, Set.of()), null)) {
            store.topics().createOrUpdate(TopicConfig.of(TOPIC, 1)).join();
            store.groups().createOrUpdate(new GroupConfig(GROUP, 16, false, false, Map.of())).join();
            final Messaging amqp = observability.observe(store, "amqp");
            for (int i = 0; i < ROUNDS; i++) {
                final String body = "m" + i;
                store.send(Message.builder(TOPIC).queueId(0).body(body.getBytes(StandardCharsets.UTF_8)).build())
                        .get(10, TimeUnit.SECONDS);
                final CompletableFuture<PopResult> cancelled = amqp.pop(new PopRequest(GROUP, TOPIC, null, 1,
                        INVISIBLE_MS, 1_000));
                if (i % 2 == 1) {
                    Thread.onSpinWait(); // odd rounds cancel a moment later
                }
                if (!cancelled.cancel(false)) {
                    // It completed first: its caller has the message and gives it back, as a front-end whose link
                    // ended does.
                    for (PoppedMessage m : cancelled.join().messages()) {
                        amqp.giveBack(GROUP, m.receiptHandle()).get(10, TimeUnit.SECONDS);
                    }
                }
                final PopResult again = amqp.pop(new PopRequest(GROUP, TOPIC, null, 1, INVISIBLE_MS, 5_000))
                        .get(10, TimeUnit.SECONDS);
                assertThat(again.messages()).as("round %d: the message the cancelled pop may have taken", i)
                        .hasSize(1);
                final PoppedMessage m = again.messages().get(0);
                final byte[] got = new byte[m.message().body().remaining()];
                m.message().body().duplicate().get(got);
                assertThat(new String(got, StandardCharsets.UTF_8)).isEqualTo(body);
                amqp.ack(GROUP, m.receiptHandle()).get(10, TimeUnit.SECONDS);
            }
        }
    }
}
