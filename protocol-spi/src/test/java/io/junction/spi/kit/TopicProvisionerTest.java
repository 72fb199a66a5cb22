package io.junction.spi.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.junction.spi.kit.TopicProvisioner.Policy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TopicProvisionerTest {
    @TempDir
    Path dir;
    private MessageStore store;

    @BeforeEach
    void open() {
        store = MessageStore.open(TestStores.small(dir).build());
    }

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    private static StoreError errorOf(final Throwable t) {
        final Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        assertThat(cause).isInstanceOf(StoreException.class);
        return ((StoreException) cause).error();
    }

    @Test
    void shouldCreateAnUnknownTopicWithThePolicysQueuesAndType() {
        final TopicProvisioner provisioner = new TopicProvisioner(store, new Policy(true, 6, TopicType.MIXED));
        final TopicConfig created = provisioner.provision("orders").join();
        assertThat(created.queueCount()).isEqualTo(6);
        assertThat(created.type()).isEqualTo(TopicType.MIXED);
        assertThat(created.readable() && created.writable()).isTrue();
        assertThat(store.topics().get("orders")).contains(created);
        store.send(TestStores.text("orders", "first")).join();
    }

    @Test
    void shouldKeepAnExistingTopicAsItIs() {
        final TopicConfig existing = new TopicConfig("kept", 2, TopicType.FIFO, TopicConfig.PERM_READ, null);
        store.topics().createOrUpdate(existing).join();
        final TopicProvisioner provisioner = new TopicProvisioner(store, new Policy(true, 8, TopicType.NORMAL));
        assertThat(provisioner.provision("kept").join()).isEqualTo(existing);
        assertThat(provisioner.find("kept", false).join()).contains(existing);
    }

    @Test
    void shouldLeaveAnUnknownTopicUnknownWhenAutoCreationIsOff() {
        final TopicProvisioner provisioner = new TopicProvisioner(store, new Policy(false, 4, TopicType.NORMAL));
        assertThat(provisioner.find("absent", true).join()).isEmpty();
        assertThatThrownBy(() -> provisioner.provision("absent").join())
                .satisfies(e -> assertThat(errorOf(e)).isEqualTo(StoreError.TOPIC_NOT_FOUND));
        assertThat(store.topics().get("absent")).isEmpty();
    }

    @Test
    void shouldNotCreateWhatTheClientMayNotCreate() {
        final TopicProvisioner provisioner = new TopicProvisioner(store, Policy.normal(4));
        assertThat(provisioner.find("forbidden", false).join()).isEmpty();
        assertThat(store.topics().get("forbidden")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a/b", "with space", ".", "..", "RMQ_SYS_TRANS_HALF_TOPIC",
        "rmq_sys_wheel_timer", "rmq_sys_REVIVE_LOG", "RMQ_SYS_TRACE_TOPIC", "TBW102", "SCHEDULE_TOPIC_XXXX",
        "%MQTT%RETAINED"})
    void shouldRefuseNamesTheStoreDoesNotTakeAndSystemNames(final String name) {
        final TopicProvisioner provisioner = new TopicProvisioner(store, Policy.normal(4));
        assertThat(TopicProvisioner.refusal(name)).isNotNull();
        assertThatThrownBy(() -> provisioner.provision(name).join())
                .satisfies(e -> assertThat(errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT));
        assertThat(store.topics().list()).extracting(TopicConfig::name).doesNotContain(name);
    }

    @Test
    void shouldRefuseANameLongerThanTheStoreTakes() {
        final TopicProvisioner provisioner = new TopicProvisioner(store, Policy.normal(4));
        assertThatThrownBy(() -> provisioner.provision("t".repeat(256)).join())
                .satisfies(e -> assertThat(errorOf(e)).isEqualTo(StoreError.ILLEGAL_ARGUMENT));
        assertThat(provisioner.provision("t".repeat(255)).join().queueCount()).isEqualTo(4);
    }

    @ParameterizedTest
    @ValueSource(strings = {"%24SYS", "%", "caf%C3%A9", "acme%orders", "a.b|c-d_e", "%DLQ%g", "%RETRY%g"})
    void shouldCreateEscapedNamespacedAndDeadLetterNames(final String name) {
        final TopicProvisioner provisioner = new TopicProvisioner(store, Policy.normal(3));
        assertThat(TopicProvisioner.refusal(name)).isNull();
        assertThat(provisioner.provision(name).join().queueCount()).isEqualTo(3);
        assertThat(store.topics().get(name)).isPresent();
    }

    @Test
    void shouldAnswerAnExistingSystemTopicWithoutCreatingOne() {
        store.topics().createOrUpdate(TopicConfig.of("RMQ_SYS_TRACE_TOPIC", 1)).join();
        final TopicProvisioner provisioner = new TopicProvisioner(store, Policy.normal(4));
        assertThat(provisioner.find("RMQ_SYS_TRACE_TOPIC", true).join().map(TopicConfig::queueCount)).contains(1);
    }

    @Test
    void shouldCreateANameAskedForConcurrentlyOnce() throws Exception {
        final TopicProvisioner provisioner = new TopicProvisioner(store, Policy.normal(5));
        final TopicProvisioner other = new TopicProvisioner(store, Policy.normal(7));
        final ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 20; round++) {
                final String name = "race-" + round;
                final CountDownLatch start = new CountDownLatch(1);
                final List<CompletableFuture<TopicConfig>> answers = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    final TopicProvisioner p = i % 4 == 0 ? other : provisioner;
                    final CompletableFuture<TopicConfig> answer = new CompletableFuture<>();
                    answers.add(answer);
                    pool.execute(() -> {
                        try {
                            start.await();
                            p.provision(name).whenComplete((c, e) -> {
                                if (e != null) {
                                    answer.completeExceptionally(e);
                                } else {
                                    answer.complete(c);
                                }
                            });
                        } catch (InterruptedException e) {
                            answer.completeExceptionally(e);
                        }
                    });
                }
                start.countDown();
                final Optional<TopicConfig> stored = CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                        .thenApply(x -> store.topics().get(name)).join();
                assertThat(stored).isPresent();
                // Whichever creation won, every asker got the topic as the store keeps it: one topic, not two.
                assertThat(answers).allSatisfy(a -> assertThat(a.join()).isEqualTo(stored.get()));
                assertThat(stored.get().queueCount()).isIn(5, 7);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
