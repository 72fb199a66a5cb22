package io.junction.core.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.message.Message;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConsumerGroupsTest {
    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

    @Test
    void shouldListLiveClientsSortedAndDropSilentOnes() {
        final ConsumerRegistry registry = new ConsumerRegistry(now::get, Duration.ofSeconds(120));
        final List<String> changes = new ArrayList<>();
        registry.addListener(changes::add);
        final Map<String, ConsumerClient.Subscription> subs = Map.of("t", new ConsumerClient.Subscription("TAG", "*"));
        registry.heartbeat("g", "c2", subs, false);
        registry.heartbeat("g", "c1", subs, false);
        registry.heartbeat("g", "c1", subs, false); // a repeat is not a change
        assertThat(registry.clients("g")).extracting(ConsumerClient::clientId).containsExactly("c1", "c2");
        assertThat(changes).containsExactly("g", "g");
        now.addAndGet(100_000);
        registry.heartbeat("g", "c1", subs, false);
        now.addAndGet(30_000);
        assertThat(registry.clients("g")).extracting(ConsumerClient::clientId).containsExactly("c1");
        registry.expire();
        assertThat(changes).hasSize(3);
        registry.unregister("g", "c1");
        assertThat(registry.clients("g")).isEmpty();
        assertThat(changes).hasSize(4);
    }

    @Test
    void shouldGrantAQueueLockToOneClientUntilReleasedOrExpired() {
        final QueueLocks locks = new QueueLocks(now::get, Duration.ofSeconds(60));
        assertThat(locks.lock("g", "a", "t", Set.of(0, 1))).containsExactly(0, 1);
        assertThat(locks.lock("g", "b", "t", Set.of(1, 2))).containsExactly(2);
        assertThat(locks.lock("other", "b", "t", Set.of(1))).containsExactly(1);
        locks.unlock("g", "b", "t", Set.of(0, 1)); // not b's: untouched
        assertThat(locks.isLockedBy("g", "a", "t", 1)).isTrue();
        locks.unlock("g", "a", "t", Set.of(1));
        assertThat(locks.lock("g", "b", "t", Set.of(1))).containsExactly(1);
        now.addAndGet(60_001);
        assertThat(locks.isLockedBy("g", "a", "t", 0)).isFalse();
        assertThat(locks.lock("g", "b", "t", Set.of(0))).containsExactly(0);
    }

    @Test
    void shouldReportLagAndReplayFromATimestamp() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build(), now::get,
                MappedSegmentFile.FACTORY)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 2)).join();
            for (int i = 0; i < 10; i++) {
                now.addAndGet(1000);
                store.send(Message.builder("t").queueId(i % 2).body(("m" + i).getBytes(StandardCharsets.UTF_8))
                        .build()).join();
            }
            TestStores.awaitIndexed(store);
            store.commitOffset("g", "t", 0, 3);
            store.commitOffset("g", "other", 0, 1);
            final List<QueueLag> lag = store.consumers().lag("g", "t").join();
            assertThat(lag).extracting(QueueLag::lag).containsExactly(2L, 5L);
            assertThat(lag.get(0).lastStoreTime()).isEqualTo(now.get() - 1000);
            // queue 0 holds m0 m2 m4 m6 m8; committed offset 3 means m4 was the last consumed
            assertThat(lag.get(0).lastConsumedTime()).isEqualTo(now.get() - 5000);
            assertThat(lag.get(1).lastConsumedTime()).isEqualTo(-1);
            assertThat(store.consumers().committedTopics("g")).containsExactly("other", "t");
            assertThat(store.consumers().committedTopics("nobody")).isEmpty();

            final long replayFrom = now.get() - 3500; // the last 4 messages: m6..m9, 2 per queue
            assertThat(store.consumers().resetOffsets("g", "t", replayFrom).join()).isEqualTo(Map.of(0, 3L, 1, 3L));
            assertThat(store.queryOffset("g", "t", 1)).isEqualTo(3);
            final List<PoppedMessage> popped = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                popped.addAll(store.pop(new PopRequest("g", "t", null, 32, 30_000, 0)).join().messages());
            }
            assertThat(popped).extracting(m -> TestStores.body(m.message()))
                    .containsExactlyInAnyOrder("m6", "m7", "m8", "m9");
        }
    }

    @Test
    void shouldCreateAnUnknownGroupOnFirstUseOnlyWhenAllowed() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir.resolve("auto")).build(), now::get,
                MappedSegmentFile.FACTORY)) {
            assertThat(store.groups().getOrCreate("fresh")).hasValueSatisfying(g -> assertThat(g.name())
                    .isEqualTo("fresh"));
            await().atMost(Duration.ofSeconds(10)).until(() -> store.groups().get("fresh").isPresent());
            assertThat(store.groups().getOrCreate("no such")).isEmpty(); // not a name a group may have
        }
        try (MessageStore store = MessageStore.open(TestStores.small(dir.resolve("fixed")).autoCreateGroups(false)
                .build(), now::get, MappedSegmentFile.FACTORY)) {
            assertThat(store.groups().getOrCreate("fresh")).isEmpty();
            assertThat(store.groups().get("fresh")).isEmpty();
            store.groups().createOrUpdate(GroupConfig.of("made")).join();
            assertThat(store.groups().getOrCreate("made")).hasValueSatisfying(g -> assertThat(g.name())
                    .isEqualTo("made"));
        }
    }

    @Test
    void shouldNeverOverwriteAGroupWrittenJustBeforeItsFirstUse() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build(), now::get,
                MappedSegmentFile.FACTORY)) {
            // a FIFO group being saved (a gRPC client asked for it) while a heartbeat or pop uses it for the first time
            final List<CompletableFuture<GroupConfig>> saving = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                saving.add(store.groups().createOrUpdate(new GroupConfig("ordered-" + i, 16, true, false, Map.of())));
                store.groups().getOrCreate("ordered-" + i);
            }
            saving.forEach(CompletableFuture::join);
            // what getOrCreate saves runs after the FIFO writes on the same thread: once a fresh group is saved, all are
            store.groups().getOrCreate("last");
            await().atMost(Duration.ofSeconds(10)).until(() -> store.groups().get("last").isPresent());
            for (int i = 0; i < 200; i++) {
                assertThat(store.groups().get("ordered-" + i)).as("group ordered-" + i)
                        .hasValueSatisfying(g -> assertThat(g.fifo()).isTrue());
            }
        }
    }

    @Test
    void shouldKeepSeparateOffsetsPerClientOfABroadcastGroup() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build(), now::get,
                MappedSegmentFile.FACTORY)) {
            final String a = io.junction.core.Messaging.Consumers.broadcastOffsetKey("g", "client-a");
            final String b = io.junction.core.Messaging.Consumers.broadcastOffsetKey("g", "client-b");
            store.commitOffset(a, "t", 0, 5);
            store.commitOffset(b, "t", 0, 9);
            assertThat(store.queryOffset(a, "t", 0)).isEqualTo(5);
            assertThat(store.queryOffset(b, "t", 0)).isEqualTo(9);
            assertThat(store.queryOffset("g", "t", 0)).isEqualTo(-1);
        }
    }

    @Test
    void shouldRedriveDeadLettersToTheirTopicOnce() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build(), now::get,
                MappedSegmentFile.FACTORY)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            store.groups().createOrUpdate(new GroupConfig("g", 0, false, false, Map.of())).join();
            store.send(Message.builder("t").body("dead".getBytes(StandardCharsets.UTF_8)).build()).join();
            TestStores.awaitIndexed(store);
            assertThat(store.pop(new PopRequest("g", "t", null, 1, 1000, 0)).join().messages()).hasSize(1);
            now.addAndGet(1001);
            assertThat(store.reviveNow()).isEqualTo(1);
            TestStores.awaitIndexed(store);
            assertThat(TestStores.readAll(store, "%DLQ%g", 0)).hasSize(1);
            assertThat(store.groups().redriveDeadLetters("g", 10).join()).isEqualTo(1);
            assertThat(store.groups().redriveDeadLetters("g", 10).join()).isZero();
            TestStores.awaitIndexed(store);
            final List<PoppedMessage> again = store.pop(new PopRequest("g", "t", null, 1, 1000, 0)).join().messages();
            assertThat(again).extracting(m -> TestStores.body(m.message())).containsExactly("dead");
            assertThat(again.get(0).reconsumeTimes()).isZero();
        }
    }
}
