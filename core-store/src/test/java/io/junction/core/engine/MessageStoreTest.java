package io.junction.core.engine;

import static io.junction.core.engine.TestStores.body;
import static io.junction.core.engine.TestStores.readAll;
import static io.junction.core.engine.TestStores.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.Messaging;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.PullStatus;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.SystemNames;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MessageStoreTest {
    @TempDir
    Path dir;

    @Test
    void shouldReadBackWhatWasSentWithAllFields() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            final Message sent = Message.builder("orders").queueId(2).body("hello".getBytes(StandardCharsets.UTF_8))
                    .tag("TagA").keys("k1 k2").property("color", "red").flag(7)
                    .bornHost(new InetSocketAddress("10.1.2.3", 4567)).bornTimestamp(1234L).reconsumeTimes(3).build();
            final SendResult result = store.send(sent).join();
            assertThat(result.queueId()).isEqualTo(2);
            assertThat(result.queueOffset()).isZero();
            assertThat(result.uniqueId()).hasSize(32);
            TestStores.awaitIndexed(store);

            final List<StoredMessage> read = readAll(store, "orders", 2);
            assertThat(read).hasSize(1);
            final StoredMessage m = read.get(0);
            assertThat(body(m)).isEqualTo("hello");
            assertThat(m.tag()).isEqualTo("TagA");
            assertThat(m.keys()).isEqualTo("k1 k2");
            assertThat(m.property("color")).isEqualTo("red");
            assertThat(m.uniqueId()).isEqualTo(result.uniqueId());
            assertThat(m.flag()).isEqualTo(7);
            assertThat(m.bornHost()).isEqualTo(new InetSocketAddress("10.1.2.3", 4567));
            assertThat(m.bornTimestamp()).isEqualTo(1234L);
            assertThat(m.reconsumeTimes()).isEqualTo(3);
            assertThat(m.commitLogOffset()).isEqualTo(result.commitLogOffset());
            assertThat(m.offsetMessageId()).isEqualTo(result.offsetMessageId());
            assertThat(m.record().remaining()).isEqualTo(m.size());
        }
    }

    @Test
    void shouldAssignConsecutiveQueueOffsetsPerQueueAndAutoCreateTopics() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).defaultQueueCount(4).build())) {
            final List<CompletableFuture<SendResult>> sends = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                sends.add(store.send(text("auto", "m" + i)));
            }
            final List<SendResult> results = sends.stream().map(CompletableFuture::join).toList();
            assertThat(store.route("auto")).map(TopicConfig::queueCount).contains(4);
            for (int q = 0; q < 4; q++) {
                final int queue = q;
                final List<Long> offsets = results.stream().filter(r -> r.queueId() == queue)
                        .map(SendResult::queueOffset).sorted().toList();
                assertThat(offsets).hasSize(100);
                for (int i = 0; i < offsets.size(); i++) {
                    assertThat(offsets.get(i)).isEqualTo(i);
                }
            }
            TestStores.awaitIndexed(store);
            int total = 0;
            for (int q = 0; q < 4; q++) {
                assertThat(store.maxOffset("auto", q)).isEqualTo(100);
                total += readAll(store, "auto", q).size();
            }
            assertThat(total).isEqualTo(400);
        }
    }

    @Test
    void shouldRefuseUnknownTopicWhenAutoCreateIsOffAndOversizedBodies() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).autoCreateTopics(false)
                .maxMessageSize(1000).build())) {
            assertThat(errorOf(store.send(text("nope", "x")))).isEqualTo(StoreError.TOPIC_NOT_FOUND);
            store.topics().createOrUpdate(TopicConfig.of("t", 2)).join();
            assertThat(errorOf(store.send(Message.builder("t").body(new byte[1001]).build())))
                    .isEqualTo(StoreError.MESSAGE_TOO_LARGE);
            assertThat(errorOf(store.send(Message.builder("t").queueId(5).body(new byte[1]).build())))
                    .isEqualTo(StoreError.QUEUE_NOT_FOUND);
            assertThat(errorOf(store.send(Message.builder("bad/name").body(new byte[1]).build())))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
            assertThat(errorOf(store.send(Message.builder("t").property("p", "a\u0001b").body(new byte[1]).build())))
                    .isEqualTo(StoreError.ILLEGAL_MESSAGE);
            assertThat(store.send(Message.builder("t").body(new byte[1000]).build()).join().topic()).isEqualTo("t");
        }
    }

    @Test
    void shouldReportOffsetsOutOfRange() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            store.send(Message.builder("t").queueId(0).body(new byte[3]).build()).join();
            TestStores.awaitIndexed(store);
            assertThat(pull(store, "t", 0, 5).status()).isEqualTo(PullStatus.OFFSET_OVERFLOW);
            assertThat(pull(store, "t", 0, 5).nextOffset()).isEqualTo(1);
            assertThat(pull(store, "t", 0, 1).status()).isEqualTo(PullStatus.NO_NEW_MESSAGE);
            assertThat(pull(store, "t", 3, 0).status()).isEqualTo(PullStatus.NO_SUCH_QUEUE);
            assertThat(pull(store, "none", 0, 0).status()).isEqualTo(PullStatus.NO_SUCH_QUEUE);
        }
    }

    @Test
    void shouldSkipNonMatchingMessagesWithoutReturningThem() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            for (int i = 0; i < 10; i++) {
                store.send(Message.builder("t").queueId(0).tag(i % 2 == 0 ? "even" : "odd")
                        .body(("m" + i).getBytes(StandardCharsets.UTF_8)).build()).join();
            }
            TestStores.awaitIndexed(store);
            final long evenHash = "even".hashCode();
            final java.util.concurrent.atomic.AtomicInteger decoded = new java.util.concurrent.atomic.AtomicInteger();
            final MessageFilter even = new MessageFilter() {
                @Override
                public boolean matchesTagHash(final long tagHash) {
                    return tagHash == evenHash;
                }

                @Override
                public boolean matches(final Map<String, String> properties) {
                    decoded.incrementAndGet();
                    return "even".equals(properties.get("TAGS"));
                }
            };
            final PullResult r = store.pull(new PullRequest("g", "t", 0, 0, 32, even, 0)).join();
            assertThat(r.messages()).extracting(TestStores::body).containsExactly("m0", "m2", "m4", "m6", "m8");
            assertThat(r.nextOffset()).isEqualTo(10);
            // The tag hash in the queue entry decided for the odd ones: their records were never read.
            assertThat(decoded.get()).isEqualTo(5);
        }
    }

    @Test
    void shouldWakeALongPollWhenAMessageArrives() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final long start = System.nanoTime();
            final CompletableFuture<PullResult> parked =
                    store.pull(new PullRequest("g", "t", 0, 0, 32, null, 10_000));
            Thread.sleep(200); // let the read park; the assertion below is on the wake-up, not this pause
            assertThat(parked).isNotDone();
            final long sentAt = System.nanoTime();
            store.send(Message.builder("t").queueId(0).body("late".getBytes(StandardCharsets.UTF_8)).build()).join();
            final PullResult r = parked.get(5, TimeUnit.SECONDS);
            final long wokenAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
            assertThat(r.status()).isEqualTo(PullStatus.FOUND);
            assertThat(r.messages()).extracting(TestStores::body).containsExactly("late");
            assertThat(wokenAfterMs).isLessThan(1000);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000);
        }
    }

    @Test
    void shouldWakeTheParkedReadersOfAQueueWithTheWholeBurstAndShareItsDecoding() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final List<CompletableFuture<PullResult>> parked = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                parked.add(store.pull(new PullRequest("g" + i, "t", 0, 0, 32, null, 10_000)));
            }
            Thread.sleep(200); // let the reads park
            assertThat(parked).noneMatch(CompletableFuture::isDone);
            final List<Message> burst = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                burst.add(Message.builder("t").queueId(0).body(("b" + i).getBytes(StandardCharsets.UTF_8)).build());
            }
            store.sendBatch(burst).join(); // one write: the dispatcher indexes all five in one pass
            final java.util.Set<StoredMessage> decoded = java.util.Collections.newSetFromMap(
                    new java.util.IdentityHashMap<>());
            for (CompletableFuture<PullResult> p : parked) {
                final List<StoredMessage> got = p.get(5, TimeUnit.SECONDS).messages();
                assertThat(got).as("every reader woken once the whole burst was indexed").extracting(TestStores::body)
                        .containsExactly("b0", "b1", "b2", "b3", "b4");
                decoded.addAll(got);
            }
            // 40 readers wake as two tasks (32 + 8); two reading threads may both decode a record before either
            // keeps it, so at most two decodings of each, not forty.
            assertThat(decoded).as("decoded messages shared by the readers").hasSizeBetween(5, 10);
        }
    }

    @Test
    void shouldAnswerAnIdleLongPollWhenItsWaitEnds() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            final long start = System.nanoTime();
            final PullResult r = store.pull(new PullRequest("g", "t", 0, 0, 32, null, 300)).join();
            final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(r.status()).isEqualTo(PullStatus.NO_NEW_MESSAGE);
            assertThat(ms).isBetween(250L, 5000L);
        }
    }

    @Test
    void shouldFindMessagesByIdKeyOffsetAndTime() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 2)).join();
            final List<SendResult> sent = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                sent.add(store.send(Message.builder("t").keys("order-" + (i % 5) + " all")
                        .body(("m" + i).getBytes(StandardCharsets.UTF_8)).build()).join());
            }
            TestStores.awaitIndexed(store);
            final SendResult seventh = sent.get(7);
            assertThat(store.queryById("t", seventh.uniqueId()).join()).map(TestStores::body).contains("m7");
            assertThat(store.queryById("t", seventh.offsetMessageId()).join()).map(TestStores::body).contains("m7");
            assertThat(store.queryById("other", seventh.uniqueId()).join()).isEmpty();
            assertThat(store.lookup(seventh.commitLogOffset()).join()).map(TestStores::body).contains("m7");
            assertThat(store.lookup(seventh.commitLogOffset() + 1).join()).isEmpty();
            assertThat(store.queryByKey("t", "order-2", 10, 0, Long.MAX_VALUE).join())
                    .extracting(TestStores::body).containsExactlyInAnyOrder("m2", "m7", "m12", "m17");
            assertThat(store.queryByKey("t", "all", 100, 0, Long.MAX_VALUE).join()).hasSize(20);
            assertThat(store.queryByTime("t", 0, Long.MAX_VALUE, 100).join()).hasSize(20);
            assertThat(store.queryByTime("t", 0, 1, 100).join()).isEmpty();
        }
    }

    @Test
    void shouldSearchOffsetsByStoreTime() {
        final long[] now = {1_000_000};
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build(), () -> now[0],
                io.junction.core.io.MappedSegmentFile.FACTORY)) {
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            for (int i = 0; i < 10; i++) {
                now[0] = 1_000_000 + i * 1000L;
                store.send(Message.builder("t").queueId(0).body(new byte[] {(byte) i}).build()).join();
            }
            TestStores.awaitIndexed(store);
            assertThat(store.searchOffset("t", 0, 1_004_000).join()).isEqualTo(4);
            assertThat(store.searchOffset("t", 0, 1_004_500).join()).isEqualTo(5);
            assertThat(store.searchOffset("t", 0, 0).join()).isZero();
            assertThat(store.searchOffset("t", 0, 2_000_000).join()).isEqualTo(10);
            assertThat(store.earliestStoreTime("t", 0).join()).isEqualTo(1_000_000);
        }
    }

    @Test
    void shouldKeepDataTopicsGroupsAndOffsetsAcrossACleanRestart() {
        final StoreConfig config = TestStores.small(dir).build();
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(new TopicConfig("fifo", 3, TopicType.FIFO, TopicConfig.PERM_READ_WRITE,
                    Map.of("message.type", "FIFO"))).join();
            store.groups().createOrUpdate(new GroupConfig("g1", 5, true, false, Map.of())).join();
            for (int i = 0; i < 50; i++) {
                store.send(Message.builder("fifo").queueId(i % 3).body(("m" + i).getBytes(StandardCharsets.UTF_8))
                        .build()).join();
            }
            store.commitOffset("g1", "fifo", 1, 7);
        }
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(store.stats().recoveredFromCrash()).isFalse();
            assertThat(store.route("fifo")).map(TopicConfig::type).contains(TopicType.FIFO);
            assertThat(store.route("fifo")).map(TopicConfig::attributes).contains(Map.of("message.type", "FIFO"));
            assertThat(store.groups().get("g1")).map(GroupConfig::maxReconsumeTimes).contains(5);
            assertThat(store.queryOffset("g1", "fifo", 1)).isEqualTo(7);
            assertThat(store.queryOffset("g1", "fifo", 0)).isEqualTo(-1);
            int total = 0;
            for (int q = 0; q < 3; q++) {
                total += readAll(store, "fifo", q).size();
            }
            assertThat(total).isEqualTo(50);
            final SendResult next = store.send(Message.builder("fifo").queueId(0).body(new byte[1]).build()).join();
            assertThat(next.queueOffset()).isEqualTo(17);
        }
    }

    @Test
    void shouldRollSegmentsAndReadAcrossThem() {
        final StoreConfig config = TestStores.small(dir).build();
        final byte[] body = new byte[10_000];
        try (MessageStore store = MessageStore.open(config)) {
            store.topics().createOrUpdate(TopicConfig.of("big", 1)).join();
            for (int i = 0; i < 300; i++) {
                body[0] = (byte) i;
                store.send(Message.builder("big").queueId(0).body(body.clone()).build()).join();
            }
            assertThat(store.stats().logWriteOffset()).isGreaterThan(2L << 20);
        }
        try (MessageStore store = MessageStore.open(config)) {
            final List<StoredMessage> all = readAll(store, "big", 0);
            assertThat(all).hasSize(300);
            for (int i = 0; i < 300; i++) {
                assertThat(all.get(i).bodyBytes()[0]).isEqualTo((byte) i);
                assertThat(all.get(i).queueOffset()).isEqualTo(i);
            }
        }
    }

    @Test
    void shouldDeleteATopicWithItsQueuesAndOffsets() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("gone", 1)).join();
            store.send(Message.builder("gone").queueId(0).body(new byte[1]).build()).join();
            TestStores.awaitIndexed(store);
            store.commitOffset("g", "gone", 0, 1);
            assertThat(store.topics().delete("gone").join()).isTrue();
            assertThat(store.route("gone")).isEmpty();
            assertThat(store.queryOffset("g", "gone", 0)).isEqualTo(-1);
            assertThat(store.maxOffset("gone", 0)).isZero();
            assertThat(store.topics().delete("gone").join()).isFalse();
            store.topics().createOrUpdate(TopicConfig.of("gone", 1)).join();
            assertThat(store.send(Message.builder("gone").queueId(0).body(new byte[1]).build()).join().queueOffset())
                    .isZero();
        }
    }

    @Test
    void shouldDeleteATopicsKeyValueItemsWithItAndLeaveOtherNamespacesAlone() {
        final Path data = dir.resolve("kv");
        try (MessageStore store = MessageStore.open(TestStores.small(data).build())) {
            store.topics().createOrUpdate(TopicConfig.of("mapped", 2)).join();
            store.kvConfigs().put(SystemNames.STATIC_TOPICS_NAMESPACE, "mapped", "{\"epoch\":1}").join();
            store.kvConfigs().put("someone.else", "mapped", "kept").join();
            assertThat(store.topics().delete("mapped").join()).isTrue();
            assertThat(store.kvConfigs().get(SystemNames.STATIC_TOPICS_NAMESPACE, "mapped")).isEmpty();
            assertThat(store.kvConfigs().get("someone.else", "mapped")).contains("kept");
        }
        try (MessageStore store = MessageStore.open(TestStores.small(data).build())) {
            assertThat(store.kvConfigs().get(SystemNames.STATIC_TOPICS_NAMESPACE, "mapped")).as("after a restart")
                    .isEmpty();
        }
    }

    @Test
    void shouldReplaceAKeyValueItemOnlyWhileItHoldsTheExpectedValue() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            final Messaging.KvConfigs kv = store.kvConfigs();
            assertThat(kv.replace("ns", "k", "something", "v1").join()).as("none there yet").isFalse();
            assertThat(kv.get("ns", "k")).isEmpty();
            assertThat(kv.replace("ns", "k", null, "v1").join()).isTrue();
            assertThat(kv.replace("ns", "k", null, "v2").join()).as("there is one now").isFalse();
            assertThat(kv.replace("ns", "k", "v0", "v2").join()).as("another value").isFalse();
            assertThat(kv.get("ns", "k")).contains("v1");
            assertThat(kv.replace("ns", "k", "v1", "v2").join()).isTrue();
            assertThat(kv.get("ns", "k")).contains("v2");
        }
    }

    @Test
    void shouldCreateATopicOnlyWhenAbsent() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            assertThat(store.topics().createIfAbsent(TopicConfig.of("t", 3)).join().queueCount()).isEqualTo(3);
            assertThat(store.topics().createIfAbsent(TopicConfig.of("t", 7)).join().queueCount()).isEqualTo(3);
            assertThat(store.route("t")).map(TopicConfig::queueCount).contains(3);
            assertThat(errorOf(store.topics().createIfAbsent(TopicConfig.of("bad name", 1))))
                    .isEqualTo(StoreError.ILLEGAL_ARGUMENT);
        }
    }

    @Test
    void shouldRefuseASecondStoreOnTheSameDirectory() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            assertThat(store.stats().topicCount()).isZero();
            assertThatThrownBy(() -> MessageStore.open(TestStores.small(dir).build()))
                    .isInstanceOf(StoreException.class).hasMessageContaining("already open");
        }
    }

    @Test
    void shouldCompleteSyncSendsOnlyAfterTheirFlush() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).flushMode(FlushMode.SYNC).build())) {
            final List<CompletableFuture<SendResult>> sends = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                sends.add(store.send(text("sync", "m" + i)));
            }
            final long maxOffset = sends.stream().map(CompletableFuture::join)
                    .mapToLong(SendResult::commitLogOffset).max().orElseThrow();
            assertThat(store.stats().logFlushedOffset()).isGreaterThan(maxOffset);
        }
    }

    private static PullResult pull(final MessageStore store, final String topic, final int queue, final long offset) {
        return store.pull(new PullRequest("g", topic, queue, offset, 32, null, 0)).join();
    }

    private static StoreError errorOf(final CompletableFuture<?> f) {
        try {
            f.join();
            return null;
        } catch (CompletionException e) {
            return StoreException.errorOf(e);
        }
    }

}
