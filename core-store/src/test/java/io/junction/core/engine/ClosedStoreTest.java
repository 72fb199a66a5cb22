package io.junction.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PopRequest;
import io.junction.core.PullRequest;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.filter.MessageFilter;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A closed store answers every asynchronous call with a future failed UNAVAILABLE (retriable), never an exception
 * thrown at the caller: a cluster node's front-ends hold a store that a leader change closes and reopens under them,
 * and each protocol turns UNAVAILABLE into its own retriable error.
 */
class ClosedStoreTest {
    @TempDir
    Path dir;

    @Test
    void shouldAnswerEveryCallOfAClosedStoreWithAFailedFutureUnavailable() throws Exception {
        final MessageStore store = MessageStore.open(TestStores.small(dir).build());
        store.topics().createIfAbsent(TopicConfig.of("orders", 2)).get(10, TimeUnit.SECONDS);
        store.send(TestStores.text("orders", "before the close")).get(10, TimeUnit.SECONDS);
        store.close();

        final Map<String, Supplier<CompletableFuture<?>>> calls = new LinkedHashMap<>();
        calls.put("send", () -> store.send(TestStores.text("orders", "after the close")));
        calls.put("pull", () -> store.pull(new PullRequest("g", "orders", 0, 0, 8, null, 0)));
        calls.put("pop", () -> store.pop(new PopRequest("g", "orders", MessageFilter.ALL, 8, 30_000, 0)));
        calls.put("searchOffset", () -> store.searchOffset("orders", 0, 0));
        calls.put("earliestStoreTime", () -> store.earliestStoreTime("orders", 0));
        calls.put("lookup", () -> store.lookup(0));
        calls.put("queryById", () -> store.queryById("orders", "id"));
        calls.put("queryByKey", () -> store.queryByKey("orders", "k", 8, 0, Long.MAX_VALUE));
        calls.put("queryByTime", () -> store.queryByTime("orders", 0, Long.MAX_VALUE, 8));
        calls.put("topics().createIfAbsent", () -> store.topics().createIfAbsent(TopicConfig.of("new", 1)));
        calls.put("topics().createOrUpdate", () -> store.topics().createOrUpdate(TopicConfig.of("orders", 4)));
        calls.put("topics().delete", () -> store.topics().delete("orders"));
        calls.put("groups().createOrUpdate", () -> store.groups().createOrUpdate(GroupConfig.of("g")));
        calls.put("groups().delete", () -> store.groups().delete("g"));
        calls.put("kvConfigs().put", () -> store.kvConfigs().put("ns", "k", "v"));
        calls.put("kvConfigs().replace", () -> store.kvConfigs().replace("ns", "k", null, "v"));
        calls.put("kvConfigs().delete", () -> store.kvConfigs().delete("ns", "k"));
        calls.put("consumers().lag", () -> store.consumers().lag("g", "orders"));
        calls.put("consumers().resetOffsets", () -> store.consumers().resetOffsets("g", "orders", 0));
        calls.put("statistics().runtime", () -> store.statistics().runtime());

        for (Map.Entry<String, Supplier<CompletableFuture<?>>> call : calls.entrySet()) {
            final CompletableFuture<?> answer = call.getValue().get();
            assertThat(answer).as(call.getKey()).isNotNull();
            final StoreError error = errorOf(answer, call.getKey());
            assertThat(error).as("%s on a closed store", call.getKey()).isEqualTo(StoreError.UNAVAILABLE);
        }
    }

    private static StoreError errorOf(final CompletableFuture<?> answer, final String call) throws Exception {
        try {
            answer.get(10, TimeUnit.SECONDS);
            throw new AssertionError(call + " succeeded on a closed store");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StoreException s) {
                return s.error();
            }
            throw new AssertionError(call + " failed with " + e.getCause(), e.getCause());
        }
    }
}
