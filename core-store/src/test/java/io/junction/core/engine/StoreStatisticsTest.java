package io.junction.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.PopRequest;
import io.junction.core.PullRequest;
import io.junction.core.RuntimeFigures;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.meta.TopicConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreStatisticsTest {
    @TempDir
    Path dir;
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

    private MessageStore open() {
        return MessageStore.open(TestStores.small(dir).build(), now::get, MappedSegmentFile.FACTORY);
    }

    @Test
    void shouldReportTotalsLogPositionsAndTheOldestMessage() {
        try (MessageStore store = open()) {
            final long boot = now.get();
            store.topics().createOrUpdate(TopicConfig.of("t", 1)).join();
            now.addAndGet(5000);
            final long firstStored = now.get();
            for (int i = 0; i < 3; i++) {
                store.send(TestStores.text("t", "m" + i)).join();
                now.addAndGet(1000);
            }
            TestStores.awaitIndexed(store);
            assertThat(store.pull(new PullRequest("g", "t", 0, 0, 2, null, 0)).join().messages()).hasSize(2);
            store.pull(new PullRequest("g", "t", 0, 3, 32, null, 0)).join(); // finds none
            assertThat(store.pop(new PopRequest("p", "t", null, 32, 30_000, 0)).join().messages()).hasSize(3);

            final RuntimeFigures f = store.statistics().runtime().join();
            assertThat(f.bootTimestamp()).isEqualTo(boot);
            assertThat(f.storedTotals().now()).isEqualTo(3);
            assertThat(f.handedOutTotals().now()).as("2 pulled and 3 popped").isEqualTo(5);
            assertThat(f.logMinOffset()).isZero();
            assertThat(f.logMaxOffset()).isEqualTo(store.stats().logWriteOffset()).isPositive();
            assertThat(f.earliestMessageTime()).isEqualTo(firstStored);
            assertThat(f.dispatchBehindBytes()).isBetween(0L, f.logMaxOffset());
            assertThat(f.diskUsedRatio()).isBetween(0.0, 1.0);
        }
    }

    @Test
    void shouldKeepKeyValueConfigsPerNamespaceAcrossRestarts() {
        try (MessageStore store = open()) {
            store.kvConfigs().put("ORDER", "a", "1").join();
            store.kvConfigs().put("ORDER", "b", "2").join();
            store.kvConfigs().put("OTHER", "a", "x").join();
            store.kvConfigs().put("ORDER", "a", "3").join();
            assertThat(store.kvConfigs().delete("OTHER", "a").join()).isTrue();
            assertThat(store.kvConfigs().delete("OTHER", "a").join()).isFalse();
        }
        try (MessageStore store = open()) {
            assertThat(store.kvConfigs().get("ORDER", "a")).contains("3");
            assertThat(store.kvConfigs().get("OTHER", "a")).isEmpty();
            assertThat(store.kvConfigs().list("ORDER")).isEqualTo(Map.of("a", "3", "b", "2"));
            assertThat(store.kvConfigs().list("OTHER")).isEmpty();
            assertThatThrownBy(() -> store.kvConfigs().put("", "k", "v").join())
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(StoreException.class)
                    .satisfies(e -> assertThat(((StoreException) e.getCause()).error())
                            .isEqualTo(StoreError.ILLEGAL_ARGUMENT));
        }
    }
}
