package io.junction.core.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.junction.core.filter.FilterType;
import io.junction.core.filter.Filters;
import io.junction.core.filter.InvalidFilterException;
import io.junction.core.filter.MessageFilter;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * Any text either compiles to a filter or is refused with {@link InvalidFilterException}; a compiled filter decides
 * every message without throwing. Seeds: {@code SqlFilterFuzzTestInputs/}.
 */
@Tag("fuzz")
class SqlFilterFuzzTest {
    @Timeout(1) // while fuzzing: an input that takes over a second is a hang finding (see junit-platform.properties)
    @FuzzTest(maxDuration = "10m")
    void compileAndEvaluate(final FuzzedDataProvider data) {
        final Map<String, String> properties = new HashMap<>();
        final int count = data.consumeInt(0, 6);
        for (int i = 0; i < count; i++) {
            properties.put(data.consumeString(8), data.consumeString(16));
        }
        final boolean sql = data.consumeBoolean();
        final String expression = data.consumeRemainingAsString();
        final MessageFilter filter;
        try {
            filter = Filters.compile(sql ? FilterType.SQL92 : FilterType.TAG, expression);
        } catch (InvalidFilterException expected) {
            return;
        }
        filter.matchesTagHash(expression.hashCode());
        filter.matches(properties);
    }
}
