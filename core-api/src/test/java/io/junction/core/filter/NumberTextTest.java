package io.junction.core.filter;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NumberTextTest {

    @ParameterizedTest(name = "[{0}] -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            0                     | LONG
            -0                    | LONG
            +42                   | LONG
            007                   | LONG
            9223372036854775807   | LONG
            -9223372036854775808  | LONG
            9223372036854775808   | DOUBLE
            -9223372036854775809  | DOUBLE
            00009223372036854775807 | LONG
            99999999999999999999  | DOUBLE
            2.5                   | DOUBLE
            .5                    | DOUBLE
            5.                    | DOUBLE
            1e3                   | DOUBLE
            -1.5E-3               | DOUBLE
            ""                    | UNKNOWN
            " 5"                  | UNKNOWN
            "5 "                  | UNKNOWN
            +                     | UNKNOWN
            .                     | UNKNOWN
            1e                    | UNKNOWN
            1e+                   | UNKNOWN
            e5                    | UNKNOWN
            NaN                   | UNKNOWN
            Infinity              | UNKNOWN
            0x10                  | UNKNOWN
            5L                    | UNKNOWN
            5d                    | UNKNOWN
            1.2.3                 | UNKNOWN
            """)
    void shouldClassifyPropertyText(final String text, final String expected) {
        final int kind = NumberText.classify(text);
        assertThat(kind == NumericExpr.LONG ? "LONG" : kind == NumericExpr.DOUBLE ? "DOUBLE" : "UNKNOWN")
                .isEqualTo(expected);
        if (kind == NumericExpr.LONG) {
            assertThat(NumberText.parseLong(text)).isEqualTo(Long.parseLong(text));
        } else if (kind == NumericExpr.DOUBLE) {
            assertThat(NumberText.parseDouble(text)).isEqualTo(Double.parseDouble(text));
        }
    }
}
