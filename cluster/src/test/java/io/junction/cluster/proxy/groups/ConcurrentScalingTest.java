package io.junction.cluster.proxy.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.SendResult;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two proxies scaling one topic at the same moment, round after round, while a producer on each proxy sends to both
 * logical queues (three stores behind contract servers, the proxies over real sockets): every scaling succeeds (the
 * one whose placement write lost re-reads and plans again), and the placement both proxies end with keeps each
 * logical queue one gapless sequence of segments holding every acknowledged message once, at the logical offset its
 * send was acknowledged with, each producer's messages of a queue in its send order.
 */
class ConcurrentScalingTest {
    private static final String TOPIC = "contended";
    private static final int ROUNDS = 8;

    @TempDir
    Path dir;

    private SingleReplicaGroups groups;
    private final List<GroupedMessaging> proxies = new ArrayList<>();

    @BeforeEach
    void start() {
        groups = new SingleReplicaGroups(dir, 3);
        proxies.add((GroupedMessaging) groups.proxy(groups.first(3)).messaging());
        proxies.add((GroupedMessaging) groups.proxy(groups.first(3)).messaging());
    }

    @AfterEach
    void stop() {
        groups.close();
    }

    private static <T> T get(final CompletableFuture<T> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS);
    }

    private static String body(final StoredMessage m) {
        return new String(m.bodyBytes(), StandardCharsets.UTF_8);
    }

    /** An acknowledged send: the logical queue and offset it was acknowledged at. */
    private record Acked(String body, int queue, long offset) {
    }

    @Test
    void shouldKeepEveryLogicalQueueOneSequenceWhenTwoProxiesScaleTheSameTopicAtOnce() throws Exception {
        get(proxies.get(0).topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        await().atMost(SingleReplicaGroups.SETTLE).until(() -> proxies.get(1).placement(TOPIC) != null);

        final Map<String, Acked> acknowledged = new ConcurrentHashMap<>();
        final AtomicInteger failed = new AtomicInteger();
        final AtomicBoolean stop = new AtomicBoolean();
        final List<Thread> producers = new ArrayList<>();
        final List<AtomicInteger> sent = new ArrayList<>();
        for (int p = 0; p < proxies.size(); p++) {
            final Messaging via = proxies.get(p);
            final String name = "p" + p;
            final AtomicInteger count = new AtomicInteger();
            sent.add(count);
            producers.add(new Thread(() -> {
                for (int i = 0; !stop.get(); i++) {
                    final String body = name + "-" + i;
                    try {
                        final SendResult r = get(via.send(Message.builder(TOPIC).queueId(i % 2)
                                .body(body.getBytes(StandardCharsets.UTF_8)).build()));
                        acknowledged.put(body, new Acked(body, r.queueId(), r.queueOffset()));
                        count.incrementAndGet();
                    } catch (Exception e) {
                        failed.incrementAndGet(); // retriable (a seal outlasting the retry): not acknowledged
                    }
                }
            }, "contending-producer-" + p));
        }
        producers.forEach(Thread::start);

        for (int round = 0; round < ROUNDS; round++) {
            final int before0 = sent.get(0).get();
            final int before1 = sent.get(1).get();
            await().atMost(SingleReplicaGroups.SETTLE)
                    .until(() -> sent.get(0).get() >= before0 + 20 && sent.get(1).get() >= before1 + 20);
            // Each proxy moves every queue onto "its" group this round, the other's the next: both always move.
            final String a = round % 2 == 0 ? "g2" : "g3";
            final String b = round % 2 == 0 ? "g3" : "g2";
            final CompletableFuture<TopicPlacement> byA = proxies.get(0).scale(TOPIC, 2, List.of(a));
            final CompletableFuture<TopicPlacement> byB = proxies.get(1).scale(TOPIC, 2, List.of(b));
            get(byA);
            get(byB);
        }
        final int last0 = sent.get(0).get();
        final int last1 = sent.get(1).get();
        await().atMost(SingleReplicaGroups.SETTLE).until(() -> sent.get(0).get() >= last0 + 20
                && sent.get(1).get() >= last1 + 20);
        stop.set(true);
        for (Thread t : producers) {
            t.join();
        }

        // Both proxies end with the same placement, each logical queue a chain of segments without gap.
        await().atMost(SingleReplicaGroups.SETTLE).until(() -> proxies.get(0).placement(TOPIC).format()
                .equals(proxies.get(1).placement(TOPIC).format()));
        final TopicPlacement placement = proxies.get(0).placement(TOPIC);
        for (int q = 0; q < 2; q++) {
            final List<QueueSegment> segments = placement.queue(q);
            assertThat(segments.size()).as("queue %d moved in rounds: %s", q, placement.format()).isGreaterThan(2);
            assertThat(segments.get(0).logicalStart()).isZero();
            for (int i = 0; i + 1 < segments.size(); i++) {
                assertThat(segments.get(i).open()).isFalse();
                assertThat(segments.get(i + 1).logicalStart()).as("queue %d segment %d: %s", q, i + 1,
                        placement.format()).isEqualTo(segments.get(i).sealedEnd());
            }
            assertThat(segments.get(segments.size() - 1).open()).isTrue();
        }

        // Every acknowledged message is read once, at its acknowledged logical offset; nothing else is there.
        final Map<String, Acked> read = new HashMap<>();
        final Map<String, Long> lastByProducerAndQueue = new HashMap<>();
        for (int q = 0; q < 2; q++) {
            long offset = 0;
            while (true) {
                final PullResult r = get(proxies.get(1).pull(new PullRequest("reader", TOPIC, q, offset, 64,
                        MessageFilter.ALL, 0)));
                if (r.messages().isEmpty()) {
                    break;
                }
                for (StoredMessage m : r.messages()) {
                    final String body = body(m);
                    assertThat(read.put(body, new Acked(body, q, m.queueOffset()))).as("read twice: " + body)
                            .isNull();
                    final String producerQueue = body.substring(0, body.indexOf('-')) + "@" + q;
                    final long seq = Long.parseLong(body.substring(body.indexOf('-') + 1));
                    final Long previous = lastByProducerAndQueue.put(producerQueue, seq);
                    assertThat(previous == null || previous < seq).as("send order of " + producerQueue).isTrue();
                }
                offset = r.nextOffset();
            }
        }
        assertThat(read).as("%d sends failed retriably; placement %s", failed.get(), placement.format())
                .containsExactlyInAnyOrderEntriesOf(acknowledged);
    }
}
