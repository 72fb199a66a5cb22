package io.junction.bench.filter;

import io.junction.core.filter.MessageFilter;
import io.junction.core.filter.SqlFilter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Evaluations per second of a compiled three-term SQL92 filter, the per-message cost a SQL subscription adds on the
 * pull/pop path. Bar: at least 2,000,000 evaluations/s on one core.
 *
 * <p>Every message has {@code a > 5} TRUE and {@code b = 'x'} FALSE, so the AND is FALSE and the OR must go on to
 * {@code c IS NOT NULL}: all three terms run on every evaluation (no short-circuit flatters the figure). Messages
 * rotate over a set of distinct, realistic property maps (system properties plus the user ones) so the JIT cannot
 * specialise on one map, and half of them match.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SqlFilterBenchmark {
    static final String EXPRESSION = "a > 5 AND b = 'x' OR c IS NOT NULL";
    private static final int MESSAGES = 1024;
    private static final String[] B_VALUES = {"y", "xx", "X", "z"};

    private MessageFilter filter;
    private List<Map<String, String>> messages;
    private int next;

    @Setup
    public void setUp() {
        filter = SqlFilter.compile(EXPRESSION);
        messages = new ArrayList<>(MESSAGES);
        int matching = 0;
        for (int i = 0; i < MESSAGES; i++) {
            final Map<String, String> properties = new HashMap<>();
            properties.put("TAGS", "tag" + (i % 7));
            properties.put("KEYS", "order-" + i);
            properties.put("UNIQ_KEY", String.format("7F0000010001%020X", i));
            properties.put("region", i % 2 == 0 ? "eu" : "us");
            properties.put("a", Integer.toString(6 + i * 37 % 100_000));
            properties.put("b", B_VALUES[i % B_VALUES.length]);
            if (i % 2 == 0) {
                properties.put("c", "present-" + i);
            }
            messages.add(properties);
            matching += filter.matches(properties) ? 1 : 0;
        }
        if (matching != MESSAGES / 2) {
            throw new IllegalStateException("fixture broken: " + matching + " of " + MESSAGES + " match");
        }
    }

    @Benchmark
    public boolean evaluate() {
        final Map<String, String> message = messages.get(next);
        next = (next + 1) & (MESSAGES - 1);
        return filter.matches(message);
    }
}
