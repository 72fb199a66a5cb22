package io.junction.core.filter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every operator against one message, with the three-valued outcome. UNKNOWN is observed through the public API: an
 * expression is TRUE when it matches, FALSE when its negation matches, UNKNOWN when neither does.
 */
class SqlFilterOperatorTest {
    static final Map<String, String> MESSAGE = new HashMap<>();

    static {
        MESSAGE.put("a", "10");
        MESSAGE.put("b", "x");
        MESSAGE.put("b2", "x");
        MESSAGE.put("s", "hello world");
        MESSAGE.put("f", "2.5");
        MESSAGE.put("t", "true");
        MESSAGE.put("neg", "-3");
        MESSAGE.put("big", "9223372036854775807");
        MESSAGE.put("n", "abc");
        MESSAGE.put("e", "");
        MESSAGE.put("q", "it's");
        MESSAGE.put("pct", "100%");
        MESSAGE.put("pct2", "100x");
        MESSAGE.put("ws", " 5");
    }

    /** TRUE, FALSE or UNKNOWN for the expression against {@link #MESSAGE}. */
    static String truth(final String expression, final SqlDialect dialect, final Map<String, String> properties) {
        final boolean matches = SqlFilter.compile(expression, dialect).matches(properties);
        final boolean negationMatches = SqlFilter.compile("NOT (" + expression + "\n)", dialect).matches(properties);
        assertThat(matches && negationMatches).as("expression and its negation both match").isFalse();
        return matches ? "TRUE" : negationMatches ? "FALSE" : "UNKNOWN";
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            a = 10                        | TRUE
            a = 10.0                      | TRUE
            a <> 10                       | FALSE
            a > 5                         | TRUE
            a > 10                        | FALSE
            a >= 10                       | TRUE
            a < 10                        | FALSE
            a <= 10                       | TRUE
            5 < a                         | TRUE
            10 >= a                       | TRUE
            f > 2                         | TRUE
            f < 2.6                       | TRUE
            f = 2.5                       | TRUE
            neg < 0                       | TRUE
            neg = -3                      | TRUE
            big = 9223372036854775807     | TRUE
            big > 9223372036854775806     | TRUE
            big > 9.2e18                  | TRUE
            a > f                         | TRUE
            f >= a                        | FALSE
            n > 5                         | UNKNOWN
            n = 5                         | UNKNOWN
            ws = 5                        | UNKNOWN
            missing > 5                   | UNKNOWN
            missing = 5                   | UNKNOWN
            missing <> 5                  | UNKNOWN
            a = '10'                      | TRUE
            a = '10.0'                    | FALSE
            '10' = a                      | TRUE
            b = 'x'                       | TRUE
            b = 'X'                       | FALSE
            b <> 'x'                      | FALSE
            b <> 'y'                      | TRUE
            b = b2                        | TRUE
            b <> b2                       | FALSE
            b = s                         | FALSE
            b = missing                   | UNKNOWN
            missing = 'x'                 | UNKNOWN
            e = ''                        | TRUE
            q = 'it''s'                   | TRUE
            e IS NULL                     | FALSE
            missing IS NULL               | TRUE
            missing IS NOT NULL           | FALSE
            b IS NOT NULL                 | TRUE
            t = TRUE                      | TRUE
            t = FALSE                     | FALSE
            t <> FALSE                    | TRUE
            TRUE = t                      | TRUE
            b = TRUE                      | UNKNOWN
            missing = TRUE                | UNKNOWN
            t                             | TRUE
            b                             | UNKNOWN
            TRUE                          | TRUE
            FALSE                         | FALSE
            NULL                          | UNKNOWN
            (a > 5) = TRUE                | TRUE
            (a > 5) <> (f > 5)            | TRUE
            a BETWEEN 5 AND 10            | TRUE
            a BETWEEN 11 AND 20           | FALSE
            a NOT BETWEEN 11 AND 20       | TRUE
            a NOT BETWEEN 5 AND 10        | FALSE
            f BETWEEN 2 AND 3             | TRUE
            f BETWEEN 2.6 AND 3           | FALSE
            a BETWEEN 5 AND a + 1         | TRUE
            a NOT BETWEEN 5 AND a - 1     | TRUE
            missing BETWEEN 1 AND 2       | UNKNOWN
            missing NOT BETWEEN 1 AND 2   | UNKNOWN
            n BETWEEN 1 AND 2             | UNKNOWN
            b IN ('x', 'y')               | TRUE
            b IN ('y', 'z')               | FALSE
            b NOT IN ('y', 'z')           | TRUE
            b NOT IN ('x')                | FALSE
            b IN ('a','b','c','d','e','f','g','h','i','x') | TRUE
            b IN ('a','b','c','d','e','f','g','h','i','j') | FALSE
            missing IN ('x')              | UNKNOWN
            missing NOT IN ('x')          | UNKNOWN
            s CONTAINS 'lo w'             | TRUE
            s CONTAINS 'xyz'              | FALSE
            s NOT CONTAINS 'xyz'          | TRUE
            s STARTSWITH 'hell'           | TRUE
            s NOT STARTSWITH 'hell'       | FALSE
            s ENDSWITH 'world'            | TRUE
            s ENDSWITH 'hello'            | FALSE
            s NOT ENDSWITH 'hello'        | TRUE
            'abc' CONTAINS 'b'            | TRUE
            missing CONTAINS 'a'          | UNKNOWN
            missing NOT CONTAINS 'a'      | UNKNOWN
            missing STARTSWITH 'a'        | UNKNOWN
            missing NOT ENDSWITH 'a'      | UNKNOWN
            s LIKE 'hello%'               | TRUE
            s LIKE '%world'               | TRUE
            s LIKE 'h_llo world'          | TRUE
            s LIKE 'h_llo'                | FALSE
            s LIKE '%o w%'                | TRUE
            s NOT LIKE '%o w%'            | FALSE
            s NOT LIKE 'bye%'             | TRUE
            pct LIKE '100!%' ESCAPE '!'   | TRUE
            pct2 LIKE '100!%' ESCAPE '!'  | FALSE
            pct2 LIKE '100%'              | TRUE
            missing LIKE '%'              | UNKNOWN
            missing NOT LIKE '%'          | UNKNOWN
            a + 1 = 11                    | TRUE
            a - 20 = -10                  | TRUE
            a * 2 > 19                    | TRUE
            a / 4 = 2                     | TRUE
            a / 4.0 = 2.5                 | TRUE
            a % 3 = 1                     | TRUE
            f * 2 = 5                     | TRUE
            f + a = 12.5                  | TRUE
            a / 0 = 1                     | UNKNOWN
            a / 0 IS NULL                 | TRUE
            a / 0.0 > 1000                | TRUE
            a + 1 IS NOT NULL             | TRUE
            missing + 1 IS NULL           | TRUE
            -a = -10                      | TRUE
            - a < 0                       | TRUE
            +a = 10                       | TRUE
            -neg = 3                      | TRUE
            missing + 1 > 0               | UNKNOWN
            n + 1 > 0                     | UNKNOWN
            a > 5 AND b = 'x'             | TRUE
            a > 5 AND missing = 1         | UNKNOWN
            a < 5 AND missing = 1         | FALSE
            missing = 1 AND a < 5         | FALSE
            a > 5 OR missing = 1          | TRUE
            missing = 1 OR a > 5          | TRUE
            a < 5 OR missing = 1          | UNKNOWN
            NOT missing = 1               | UNKNOWN
            NOT a = 10                    | FALSE
            NOT NOT a = 10                | TRUE
            NULL AND FALSE                | FALSE
            NULL OR TRUE                  | TRUE
            NULL OR FALSE                 | UNKNOWN
            """)
    void shouldEvaluateEachOperatorWithThreeValuedLogic(final String expression, final String expected) {
        assertThat(truth(expression, SqlDialect.SQL92, MESSAGE)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            a = 10 -- trailing comment            | TRUE
            /* lead */ a = /* mid */ 10 /* end */ | TRUE
            a=10                                  | TRUE
            a = 10L                               | TRUE
            a = 10l                               | TRUE
            a = 1e1                               | TRUE
            f = .25e1                             | TRUE
            f = 25E-1                             | TRUE
            f = 2.5e+0                            | TRUE
            a = 10.                               | TRUE
            a > -9223372036854775808              | TRUE
            a > 5 and b = 'x'                     | TRUE
            b iS nOt NuLl                         | TRUE
            a Between 1 aNd 10                    | TRUE
            b in ('x')                            | TRUE
            t = true                              | TRUE
            A = 10                                | UNKNOWN
            s contains 'hello'                    | TRUE
            """)
    void shouldAcceptRocketMqLexicalForms(final String expression, final String expected) {
        assertThat(truth(expression, SqlDialect.SQL92, MESSAGE)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            2 + 3 * 4 = 14                        | TRUE
            (2 + 3) * 4 = 20                      | TRUE
            10 - 4 - 3 = 3                        | TRUE
            20 / 2 / 5 = 2                        | TRUE
            7 % 4 * 2 = 6                         | TRUE
            -2 * 3 = -6                           | TRUE
            a + 1 * 2 = 12                        | TRUE
            7 / 2 + 0.5 = 3.5                     | TRUE
            7 / 2.0 = 3.5                         | TRUE
            a = 10 OR b = 'y' AND missing = 1     | TRUE
            (a = 10 OR b = 'y') AND missing = 1   | UNKNOWN
            NOT a = 1 AND b = 'y'                 | FALSE
            NOT (a = 1 AND b = 'y')               | TRUE
            NOT a = 1                             | TRUE
            a = 1 OR NOT b = 'y' AND a = 10       | TRUE
            b = 'x' OR a = 1 AND a = 2            | TRUE
            """)
    void shouldApplyPrecedenceNotOverAndOverOrAndArithmeticOverComparison(final String expression,
            final String expected) {
        assertThat(truth(expression, SqlDialect.SQL92, MESSAGE)).isEqualTo(expected);
    }
}
