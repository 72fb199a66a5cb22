package io.junction.core.engine;

import static io.junction.core.engine.TestStores.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.SendResult;
import io.junction.core.meta.TopicConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The contract's promise for a completed send: durable <em>and visible to consumers</em>. A client that reads the moment
 * its send is answered (the queue's end, the message by its id) finds it, in both flush modes, one send at a time and
 * with many in flight.
 */
class AcknowledgedIsVisibleTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(FlushMode.class)
    void shouldShowEachMessageTheMomentItsSendCompletes(final FlushMode mode) {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).flushMode(mode).build())) {
            store.topics().createIfAbsent(TopicConfig.of("t", 1)).join();
            final List<String> unseen = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                final SendResult sent = store.send(text("t", "one-" + i)).join();
                if (store.maxOffset("t", 0) <= sent.queueOffset()) {
                    unseen.add("one-" + i);
                }
            }
            final List<CompletableFuture<Void>> checks = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                final String body = "many-" + i;
                checks.add(store.send(text("t", body)).thenAccept(sent -> {
                    if (store.maxOffset("t", 0) <= sent.queueOffset()
                            || store.queryById("t", sent.uniqueId()).join().isEmpty()) {
                        synchronized (unseen) {
                            unseen.add(body);
                        }
                    }
                }));
            }
            checks.forEach(CompletableFuture::join);
            assertThat(unseen).as("acknowledged but not yet readable").isEmpty();
        }
    }
}
