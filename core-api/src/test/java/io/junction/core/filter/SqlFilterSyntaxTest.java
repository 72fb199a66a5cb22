package io.junction.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Malformed expressions are rejected with the exact column and what was expected; limits hold. */
class SqlFilterSyntaxTest {

    @ParameterizedTest(name = "[{0}] -> column {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            ""                          | 1  | expected a property, literal or '(' but found end of expression
            "a = "                      | 5  | expected a property, literal or '(' but found end of expression
            a = 1 b = 2                 | 7  | expected AND, OR or end of expression but found 'b'
            (a = 1                      | 7  | expected ')' but found end of expression
            a = 1 AND                   | 10 | expected a property, literal or '(' but found end of expression
            a IN ('x', 1)               | 12 | expected a string literal but found '1'
            a IN 'x'                    | 6  | expected '(' but found string literal 'x'
            a IN ('x' 'y')              | 11 | expected ',' or ')' but found string literal 'y'
            b = 'unterminated           | 5  | unterminated string literal
            a = 1 /* open comment       | 7  | unterminated comment
            a # 1                       | 3  | unexpected character '#'
            a > 'x'                     | 5  | expected a number or property for '>' but found string literal 'x'
            TRUE < a                    | 1  | expected a number or property for '<' but found boolean expression
            a = NULL                    | 5  | NULL cannot be compared with '=': use IS NULL or IS NOT NULL
            a BETWEEN 5 AND 1           | 11 | BETWEEN lower bound 5 is greater than upper bound 1
            a BETWEEN 1 5               | 13 | expected AND but found '5'
            a NOT 5                     | 7  | expected BETWEEN, IN, LIKE, CONTAINS, STARTSWITH or ENDSWITH but found '5'
            a IS 5                      | 6  | expected NOT or NULL but found '5'
            a IS NOT 5                  | 10 | expected NULL but found '5'
            a = 007                     | 5  | leading zeros are not allowed in integer literal '007'
            a = 9223372036854775808     | 5  | integer literal 9223372036854775808 is out of range
            a + 1                       | 1  | expected a boolean expression but found numeric expression
            a = 1 AND 'x'               | 11 | expected a boolean expression but found string literal 'x'
            5 IN ('x')                  | 1  | expected a property before IN but found numeric expression
            a LIKE 'x!' ESCAPE '!'      | 8  | LIKE pattern ends with the escape character
            a LIKE 'x' ESCAPE 'ab'      | 19 | ESCAPE must be a single character but found string literal 'ab'
            a LIKE x                    | 8  | expected a string literal but found 'x'
            a CONTAINS 5                | 12 | expected a string literal but found '5'
            t = 'x' AND FALSE = 1       | 21 | cannot compare a boolean with numeric expression
            a = -'x'                    | 6  | expected a number or property for '-' but found string literal 'x'
            a.b = 1                     | 2  | unexpected character '.'
            contains = 1                | 1  | expected a property, literal or '(' but found 'CONTAINS'
            """)
    void shouldReportColumnAndExpectation(final String expression, final int column, final String reason) {
        final FilterSyntaxException e = catchThrowableOfType(FilterSyntaxException.class,
                () -> SqlFilter.compile(expression));
        assertThat(e).as("no exception for %s", expression).isNotNull();
        assertThat(e.column()).isEqualTo(column);
        assertThat(e.reason()).isEqualTo(reason);
        assertThat(e.getMessage()).startsWith("column " + column + ": " + reason);
    }

    @Test
    void shouldBeAnIllegalArgumentExceptionQuotingOnlyTheNeighbourhoodOfLongExpressions() {
        final String expression = "a = 1 AND ".repeat(200) + "a = ";
        final FilterSyntaxException e = catchThrowableOfType(FilterSyntaxException.class,
                () -> SqlFilter.compile(expression));
        assertThat(e).isInstanceOf(IllegalArgumentException.class);
        assertThat(e.column()).isEqualTo(expression.length() + 1);
        assertThat(e.getMessage()).hasSizeLessThan(250).contains("in \"...").endsWith("AND a = \"");
    }

    @Test
    void shouldAcceptExpressionOfMaximumLengthAndRejectOneCharMore() {
        final String atLimit = "b = '" + "x".repeat(SqlParser.MAX_LENGTH - 6) + "'";
        assertThat(atLimit).hasSize(SqlParser.MAX_LENGTH);
        assertThat(SqlFilter.compile(atLimit).matches(Map.of("b", "x".repeat(SqlParser.MAX_LENGTH - 6)))).isTrue();

        final String tooLong = "b = '" + "x".repeat(SqlParser.MAX_LENGTH - 5) + "'";
        final FilterSyntaxException e = catchThrowableOfType(FilterSyntaxException.class,
                () -> SqlFilter.compile(tooLong));
        assertThat(e.column()).isEqualTo(SqlParser.MAX_LENGTH + 1);
        assertThat(e.reason()).isEqualTo("expression is longer than 65536 characters");
    }

    @Test
    void shouldAcceptHundredNestedParenthesesAndRejectTheHundredAndFirst() {
        final String ok = "(".repeat(100) + "a = 10" + ")".repeat(100);
        assertThat(SqlFilter.compile(ok).matches(Map.of("a", "10"))).isTrue();

        assertDepthError("(".repeat(101) + "a = 10" + ")".repeat(101), 101);
    }

    @Test
    void shouldLimitNotChainsUnarySignsAndArithmeticChains() {
        assertThat(SqlFilter.compile("NOT ".repeat(100) + "a = 10").matches(Map.of("a", "10"))).isTrue();
        assertDepthError("NOT ".repeat(101) + "a = 10", 401);

        assertThat(SqlFilter.compile("a = " + "- ".repeat(100) + "10").matches(Map.of("a", "10"))).isTrue();
        // The sign directly before a literal is part of the literal, so the 102nd sign is the 101st level.
        assertDepthError("a = " + "- ".repeat(102) + "10", 205);

        assertThat(SqlFilter.compile("a" + " + 1".repeat(100) + " = 110").matches(Map.of("a", "10"))).isTrue();
        assertDepthError("a" + " + 1".repeat(101) + " = 111", 403);
        assertDepthError("a" + " * 1".repeat(101) + " = 10", 403);
    }

    @Test
    void shouldRejectHostileNestingWithoutOverflowingTheStack() {
        assertDepthError("(".repeat(60_000), 101);
        assertDepthError("NOT ".repeat(16_000) + "a", 401);
        assertDepthError("a = " + "- ".repeat(30_000) + "1", 205);
    }

    @Test
    void shouldEvaluateLongAndChainsWithoutDeepRecursion() {
        final String expression = "a = 10" + " AND a = 10".repeat(5_000);
        assertThat(expression.length()).isLessThan(SqlParser.MAX_LENGTH);
        assertThat(SqlFilter.compile(expression).matches(Map.of("a", "10"))).isTrue();
        assertThat(SqlFilter.compile(expression).matches(Map.of("a", "11"))).isFalse();
    }

    @Test
    void shouldAcceptThousandInItemsAndRejectTheThousandAndFirst() {
        final StringBuilder ok = new StringBuilder("b IN ('v0'");
        for (int i = 1; i < 1000; i++) {
            ok.append(", 'v").append(i).append('\'');
        }
        final String thousand = ok + ")";
        assertThat(SqlFilter.compile(thousand).matches(Map.of("b", "v999"))).isTrue();
        assertThat(SqlFilter.compile(thousand).matches(Map.of("b", "v1000"))).isFalse();

        final String tooMany = ok + ", 'v1000')";
        final FilterSyntaxException e = catchThrowableOfType(FilterSyntaxException.class,
                () -> SqlFilter.compile(tooMany));
        assertThat(e.column()).isEqualTo(tooMany.indexOf("'v1000'") + 1);
        assertThat(e.reason()).isEqualTo("IN list has more than 1000 items");
    }

    @Test
    void shouldRejectInvertedBetweenInSql92ButTreatItAsEmptyRangeInJms() {
        assertThatThrownBy(() -> SqlFilter.compile("a BETWEEN 2.5 AND 1", SqlDialect.SQL92))
                .isInstanceOf(FilterSyntaxException.class)
                .hasMessageContaining("greater than upper bound");
        final SqlFilter jms = SqlFilter.compile("a BETWEEN 5 AND 1", SqlDialect.JMS);
        assertThat(jms.matches(Map.of("a", "3"))).isFalse();
        assertThat(SqlFilter.compile("a NOT BETWEEN 5 AND 1", SqlDialect.JMS).matches(Map.of("a", "3"))).isTrue();
    }

    @Test
    void shouldReserveDialectKeywordsOnly() {
        // SQL92 (RocketMQ) does not reserve LIKE or ESCAPE, so they remain usable as property names.
        assertThat(SqlFilter.compile("like = 1 AND escape = 2", SqlDialect.SQL92)
                .matches(Map.of("like", "1", "escape", "2"))).isTrue();
        assertThatThrownBy(() -> SqlFilter.compile("like = 1", SqlDialect.JMS))
                .isInstanceOf(FilterSyntaxException.class)
                .hasMessageStartingWith("column 1: expected a property, literal or '(' but found 'LIKE'");
        // JMS does not reserve RocketMQ's string operators, yet still understands them after an operand.
        assertThat(SqlFilter.compile("contains = 'a' AND s CONTAINS 'ell'", SqlDialect.JMS)
                .matches(Map.of("contains", "a", "s", "hello"))).isTrue();
    }

    @Test
    void shouldAcceptDottedAndUnicodeIdentifiersInJmsOnly() {
        final SqlFilter jms = SqlFilter.compile(
                "amqp.subject.x = 'z' AND JMSCorrelationID = 'c1' AND été = 1 AND $x_1 = 2", SqlDialect.JMS);
        assertThat(jms.matches(Map.of("amqp.subject.x", "z", "JMSCorrelationID", "c1", "été", "1", "$x_1", "2")))
                .isTrue();
        assertThat(catchThrowableOfType(FilterSyntaxException.class,
                () -> SqlFilter.compile("été = 1", SqlDialect.SQL92)).column()).isEqualTo(1);
        assertThat(SqlFilter.compile("$x_1 = 2", SqlDialect.SQL92).matches(Map.of("$x_1", "2"))).isTrue();
    }

    @Test
    void shouldMapIdentifiersToPropertiesAtCompileTime() {
        final SqlFilter filter = SqlFilter.compile("type = 'order' AND size > 3", SqlDialect.JMS,
                attribute -> attribute.equals("unknown") ? null : "ce_" + attribute);
        assertThat(filter.matches(Map.of("ce_type", "order", "ce_size", "4"))).isTrue();
        assertThat(filter.matches(Map.of("type", "order", "size", "4"))).isFalse();
        assertThat(catchThrowableOfType(FilterSyntaxException.class,
                () -> SqlFilter.compile("a = 1 OR unknown = 2", SqlDialect.JMS, x -> x.equals("unknown") ? null : x))
                .reason()).isEqualTo("unknown attribute 'unknown'");
    }

    private static void assertDepthError(final String expression, final int column) {
        final FilterSyntaxException e = catchThrowableOfType(FilterSyntaxException.class,
                () -> SqlFilter.compile(expression));
        assertThat(e).as("no exception").isNotNull();
        assertThat(e.reason()).isEqualTo("expression is nested more than 100 levels deep");
        assertThat(e.column()).isEqualTo(column);
    }
}
