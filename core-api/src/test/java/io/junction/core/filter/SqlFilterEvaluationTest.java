package io.junction.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Compilation output and run-time properties of compiled SQL filters. */
class SqlFilterEvaluationTest {

    @Test
    void shouldFoldConstantParts() {
        assertThat(SqlFilter.compile("a > 2 * 3 + 1").describeCompiled()).isEqualTo("a > 7");
        assertThat(SqlFilter.compile("1 = 1 AND a = 'x'").describeCompiled()).isEqualTo("a = 'x'");
        assertThat(SqlFilter.compile("1 = 2 AND a = 'x'").describeCompiled()).isEqualTo("FALSE");
        assertThat(SqlFilter.compile("a = 'x' OR 'b' CONTAINS 'c' OR 2 > 1").describeCompiled()).isEqualTo("TRUE");
        assertThat(SqlFilter.compile("NOT NOT a = 'x'").describeCompiled()).isEqualTo("a = 'x'");
        assertThat(SqlFilter.compile("-(2.5) < a").describeCompiled()).isEqualTo("a > -2.5");
    }

    @Test
    void shouldTreatNullPropertiesAsEmpty() {
        assertThat(SqlFilter.compile("a IS NULL").matches(null)).isTrue();
        assertThat(SqlFilter.compile("a = 1").matches(null)).isFalse();
    }

    @Test
    void shouldNotAllocateWhenEvaluatingIntegralAndStringComparisons() {
        final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeThat(bean).isInstanceOf(com.sun.management.ThreadMXBean.class);
        final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        assumeThat(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled()).isTrue();

        final SqlFilter filter = SqlFilter.compile(
                "a > 5 AND b = 'x' OR c IS NOT NULL OR d BETWEEN 1 AND 9 OR e IN ('p', 'q') OR s LIKE '%lo%'");
        final Map<String, String> message = new HashMap<>(Map.of("a", "7", "b", "y", "d", "10", "e", "r", "s", "hey"));
        int matched = 0;
        for (int i = 0; i < 20_000; i++) {
            matched += filter.matches(message) ? 1 : 0;
        }
        final long thread = Thread.currentThread().getId();
        final long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 100_000; i++) {
            matched += filter.matches(message) ? 1 : 0;
        }
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertThat(matched).isZero();
        // Far below one byte per evaluation: the measurement itself may allocate a little.
        assertThat(allocated).isLessThan(50_000);
    }

    @Test
    void shouldEvaluateOneCompiledFilterFromManyThreads() throws Exception {
        final SqlFilter filter = SqlFilter.compile("a % 2 = 0 AND b IN ('x', 'y') AND c LIKE 'k%'");
        int expected = 0;
        for (int i = 0; i < 10_000; i++) {
            expected += i % 2 == 0 && i % 3 != 0 ? 1 : 0;
        }
        final ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            final List<Future<Integer>> results = pool.invokeAll(List.of(
                    () -> count(filter), () -> count(filter), () -> count(filter), () -> count(filter)));
            for (final Future<Integer> result : results) {
                assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo(expected).isEqualTo(3_333);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Messages i = 0..9999 with b = 'z' when i is a multiple of 3: matches even i not divisible by 3. */
    private static int count(final SqlFilter filter) {
        int matched = 0;
        for (int i = 0; i < 10_000; i++) {
            matched += filter.matches(Map.of("a", Integer.toString(i), "b", i % 3 == 0 ? "z" : "x", "c", "key"))
                    ? 1 : 0;
        }
        return matched;
    }
}
