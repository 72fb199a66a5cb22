package io.junction.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DedupWindowTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final long window = TimeUnit.SECONDS.toNanos(60);

    @Test
    void aRepeatWithinTheWindowGetsTheFirstValue() {
        final DedupWindow<String> w = new DedupWindow<>(window, 100, now::get);
        assertThat(w.putIfAbsent("a", "first")).isNull();
        now.addAndGet(window - 1);
        assertThat(w.putIfAbsent("a", "second")).isEqualTo("first");
        assertThat(w.putIfAbsent("b", "other")).isNull();
    }

    @Test
    void aKeyIsForgottenOnceTheWindowHasPassed() {
        final DedupWindow<String> w = new DedupWindow<>(window, 100, now::get);
        w.putIfAbsent("a", "first");
        now.addAndGet(window);
        assertThat(w.putIfAbsent("a", "again")).isNull(); // expired, not yet swept: replaced
        assertThat(w.putIfAbsent("a", "third")).isEqualTo("again");
    }

    @Test
    void expiredKeysAreSweptByLaterPuts() {
        final DedupWindow<String> w = new DedupWindow<>(window, 100, now::get);
        for (int i = 0; i < 50; i++) {
            w.putIfAbsent("k" + i, "v");
        }
        now.addAndGet(window);
        w.putIfAbsent("fresh", "v");
        assertThat(w.size()).isEqualTo(1);
    }

    @Test
    void theOldestAreForgottenBeyondTheSizeBound() {
        final DedupWindow<Integer> w = new DedupWindow<>(window, 3, now::get);
        for (int i = 0; i < 5; i++) {
            now.incrementAndGet();
            assertThat(w.putIfAbsent("k" + i, i)).isNull();
        }
        assertThat(w.size()).isEqualTo(3);
        assertThat(w.putIfAbsent("k4", 99)).isEqualTo(4);
        assertThat(w.putIfAbsent("k0", 99)).isNull(); // evicted for size
    }

    @Test
    void forgetOnlyRemovesTheGivenValue() {
        final DedupWindow<String> w = new DedupWindow<>(window, 100, now::get);
        final String first = new String("first");
        w.putIfAbsent("a", first);
        w.forget("a", new String("first")); // another value (not the same instance): kept
        assertThat(w.putIfAbsent("a", "x")).isSameAs(first);
        w.forget("a", first);
        assertThat(w.putIfAbsent("a", "retry")).isNull();
    }
}
