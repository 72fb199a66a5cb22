package io.junction.core.pop;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PoppedMessage;
import io.junction.core.SystemNames;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.TestStores;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The POP bar: 4 concurrent poppers over 8 queues and 100,000 messages; every message delivered, never to two holders
 * at once, none lost; the 10 % never acked come back after their invisible time and reach the dead-letter topic
 * after the group's maximum deliveries, with a restart in the middle.
 */
class PopLoadTest {
    private static final int MESSAGES = 100_000;
    private static final long INVISIBLE = 60_000;

    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

    private MessageStore open(final StoreConfig config) {
        return MessageStore.open(config, now::get, MappedSegmentFile.FACTORY);
    }

    private static int number(final PoppedMessage m) {
        return Integer.parseInt(m.message().keys());
    }

    @Test
    void shouldDeliverEveryMessageToOneHolderAndDeadLetterTheNeverAcked() throws Exception {
        final StoreConfig config = TestStores.small(dir).segmentSize(64 << 20).build();
        final Map<Integer, AtomicInteger> firstRound = new ConcurrentHashMap<>();
        final Set<Integer> acked = ConcurrentHashMap.newKeySet();
        try (MessageStore store = open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("load", 8)).join();
            store.groups().createOrUpdate(new GroupConfig("g", 1, false, false, Map.of())).join();
            final Semaphore window = new Semaphore(2048);
            for (int i = 0; i < MESSAGES; i++) {
                window.acquire();
                store.send(Message.builder("load").keys(Integer.toString(i)).body(new byte[64]).build())
                        .whenComplete((r, e) -> window.release());
            }
            window.acquire(2048);
            TestStores.awaitIndexed(store);

            final ExecutorService poppers = Executors.newFixedThreadPool(4);
            final List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < 4; p++) {
                done.add(poppers.submit(() -> {
                    int empty = 0;
                    while (empty < 3) {
                        final PopResult r = store.pop(new PopRequest("g", "load", null, 32, INVISIBLE, 0)).join();
                        empty = r.messages().isEmpty() ? empty + 1 : 0;
                        final List<CompletableFuture<Void>> acks = new ArrayList<>();
                        for (PoppedMessage m : r.messages()) {
                            final int n = number(m);
                            firstRound.computeIfAbsent(n, k -> new AtomicInteger()).incrementAndGet();
                            if (n % 10 != 0) {
                                acks.add(store.ack("g", m.receiptHandle()).thenRun(() -> acked.add(n)));
                            }
                        }
                        acks.forEach(CompletableFuture::join);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            poppers.shutdown();
            // The clock has not moved: a message popped twice would have had two holders at once.
            assertThat(firstRound).hasSize(MESSAGES);
            assertThat(firstRound.values()).allMatch(c -> c.get() == 1);
            assertThat(acked).hasSize(MESSAGES * 9 / 10);
            assertThat(store.inFlight()).isEqualTo(MESSAGES / 10);
        }

        // A restart with 10,000 messages in flight.
        try (MessageStore store = open(config)) {
            assertThat(store.inFlight()).isEqualTo(MESSAGES / 10);
            final Set<Integer> redelivered = ConcurrentHashMap.newKeySet();
            for (int round = 0; round < 3; round++) {
                now.addAndGet(INVISIBLE + 1);
                while (store.reviveNow() > 0) {
                    now.addAndGet(1);
                }
                TestStores.awaitIndexed(store);
                int empty = 0;
                while (empty < 3) {
                    final PopResult r = store.pop(new PopRequest("g", "load", null, 32, INVISIBLE, 0)).join();
                    empty = r.messages().isEmpty() ? empty + 1 : 0;
                    for (PoppedMessage m : r.messages()) {
                        assertThat(number(m) % 10).as("only never-acked messages come back").isZero();
                        assertThat(m.reconsumeTimes()).isEqualTo(1);
                        assertThat(m.topic()).isEqualTo("load");
                        assertThat(redelivered.add(number(m))).as("redelivered once").isTrue();
                    }
                }
            }
            assertThat(redelivered).hasSize(MESSAGES / 10);
            assertThat(store.inFlight()).isZero();
            final List<StoredMessage> dead = TestStores.readAll(store, SystemNames.deadLetterTopic("g"), 0);
            assertThat(dead).hasSize(MESSAGES / 10);
            assertThat(dead).allMatch(m -> Integer.parseInt(m.keys()) % 10 == 0 && m.reconsumeTimes() == 2);
        }
    }
}
