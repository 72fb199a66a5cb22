package io.junction.core.filter;

import static io.junction.core.filter.SqlFilterOperatorTest.truth;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * JMS selector comparisons on properties that carry their types: values of unlike kinds never compare equal, greater
 * or alike (FALSE, so their negation is TRUE), missing properties stay UNKNOWN, numbers of any width compare by value.
 * The same text in a plain map keeps RocketMQ's conversions.
 */
class TypedPropertiesTest {
    /** The same values as text, and the kind each was sent with. */
    private static final Map<String, String> TEXT = new HashMap<>();
    private static final Map<String, TypedProperties.Kind> KINDS = new HashMap<>();

    static {
        put("s", "2", TypedProperties.Kind.STRING);
        put("s2", "2", TypedProperties.Kind.STRING);
        put("i", "2", TypedProperties.Kind.NUMBER);
        put("i2", "2.0", TypedProperties.Kind.NUMBER);
        put("d", "3.14159", TypedProperties.Kind.NUMBER);
        put("z", "true", TypedProperties.Kind.BOOLEAN);
        put("zs", "true", TypedProperties.Kind.STRING);
        put("bin", "AAE=", TypedProperties.Kind.OTHER);
    }

    private static void put(final String name, final String text, final TypedProperties.Kind kind) {
        TEXT.put(name, text);
        KINDS.put(name, kind);
    }

    /** A read-only typed view, as a front-end would pass it. */
    private static final class Typed extends AbstractMap<String, String> implements TypedProperties {
        @Override
        public String get(final Object key) {
            return TEXT.get(key);
        }

        @Override
        public Set<Entry<String, String>> entrySet() {
            return TEXT.entrySet();
        }

        @Override
        public Kind kindOf(final String name) {
            return KINDS.get(name);
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            s > 1                      | FALSE
            i > 1                      | TRUE
            s = 2                      | FALSE
            i = 2                      | TRUE
            i = 2.0                    | TRUE
            i2 = 2                     | TRUE
            s = '2'                    | TRUE
            i = '2'                    | FALSE
            i <> '2'                   | FALSE
            d = 3.14159                | TRUE
            d > 3                      | TRUE
            3 < d                      | TRUE
            s BETWEEN 1 AND 3          | FALSE
            s NOT BETWEEN 1 AND 3      | FALSE
            i BETWEEN 1 AND 3          | TRUE
            i IN ('2')                 | FALSE
            i NOT IN ('2')             | FALSE
            s IN ('2', '3')            | TRUE
            s NOT IN ('2', '3')        | FALSE
            i LIKE '2'                 | FALSE
            i NOT LIKE '2'             | FALSE
            s LIKE '2%'                | TRUE
            z                          | TRUE
            z = TRUE                   | TRUE
            z <> TRUE                  | FALSE
            TRUE = z                   | TRUE
            zs                         | FALSE
            zs = TRUE                  | FALSE
            zs <> TRUE                 | FALSE
            i = s                      | FALSE
            i = i2                     | TRUE
            i <> i2                    | FALSE
            s = s2                     | TRUE
            i + 1 = 3                  | TRUE
            s + 1 = 3                  | FALSE
            i > s                      | FALSE
            bin = 'AAE='               | FALSE
            bin > 1                    | FALSE
            missing > 1                | UNKNOWN
            missing = 'x'              | UNKNOWN
            missing                    | UNKNOWN
            i IS NULL                  | FALSE
            missing IS NULL            | TRUE
            s > 1 OR i > 1             | TRUE
            s > 1 AND missing > 1      | FALSE
            i > 1 AND missing > 1      | UNKNOWN
            """)
    void shouldCompareLikeTypesOnly(final String expression, final String expected) {
        assertThat(truth(expression, SqlDialect.JMS, new Typed())).isEqualTo(expected);
    }

    @Test
    void shouldKeepConvertingTextInPlainMaps() {
        assertThat(truth("s > 1", SqlDialect.JMS, TEXT)).isEqualTo("TRUE");
        assertThat(truth("i = '2'", SqlDialect.JMS, TEXT)).isEqualTo("TRUE");
        assertThat(truth("zs = TRUE", SqlDialect.JMS, TEXT)).isEqualTo("TRUE");
        assertThat(truth("s > 1", SqlDialect.SQL92, TEXT)).isEqualTo("TRUE");
        assertThat(truth("i2 = 2", SqlDialect.SQL92, TEXT)).isEqualTo("TRUE");
    }
}
