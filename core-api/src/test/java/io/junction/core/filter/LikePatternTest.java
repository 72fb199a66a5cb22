package io.junction.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LikePatternTest {

    @ParameterizedTest(name = "''{1}'' LIKE ''{0}'' -> {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', emptyValue = "", textBlock = """
            ""        | ""          | true
            ""        | a           | false
            %         | ""          | true
            %         | anything    | true
            %%        | ""          | true
            _         | ""          | false
            _         | a           | true
            _         | ab          | false
            abc       | abc         | true
            abc       | abcd        | false
            abc       | ABC         | false
            a%        | a           | true
            a%        | ba          | false
            %c        | abc         | true
            %c        | abcd        | false
            a%c       | ac          | true
            a%c       | abbbc       | true
            a%c       | abcb        | false
            a%b%c     | aXbYc       | true
            a%b%c     | aXcYb       | false
            %ab%ab%   | xabyab      | true
            %ab%ab%   | xabya       | false
            %aa       | aaa         | true
            a_c       | abc         | true
            a_c       | ac          | false
            %_%       | x           | true
            %_%       | ""          | false
            %a_       | zab         | true
            %a_       | zabc        | false
            a%a       | a           | false
            a%a       | aa          | true
            """)
    void shouldMatchLikeSemantics(final String pattern, final String subject, final boolean expected) {
        assertThat(LikePattern.compile(pattern, -1).matches(subject)).isEqualTo(expected);
    }

    @Test
    void shouldTreatEscapedWildcardsAsLiterals() {
        final LikePattern pattern = LikePattern.compile("50\\%\\_\\\\%", '\\');
        assertThat(pattern.matches("50%_\\ off")).isTrue();
        assertThat(pattern.matches("50x_\\ off")).isFalse();
        assertThat(pattern.matches("50%x\\ off")).isFalse();
        assertThatThrownBy(() -> LikePattern.compile("abc\\", '\\')).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldMatchOneCodePointWithUnderscore() {
        final String smile = new String(Character.toChars(0x1F600));
        assertThat(LikePattern.compile("_", -1).matches(smile)).isTrue();
        assertThat(LikePattern.compile("a_b", -1).matches("a" + smile + "b")).isTrue();
        assertThat(LikePattern.compile("%_b", -1).matches("x" + smile + "b")).isTrue();
        assertThat(LikePattern.compile("__", -1).matches(smile)).isFalse();
        assertThat(LikePattern.compile("%" + smile + "%", -1).matches("a" + smile + "b")).isTrue();
    }

    @Test
    void shouldRejectPathologicalPatternWithoutBacktrackingBlowUp() {
        final String subject = "a".repeat(20_000);
        final LikePattern pattern = LikePattern.compile("%a%a%a%a%a%a%a%a%a%a%b", -1);
        assertThat(pattern.matches(subject)).isFalse();
        assertThat(pattern.matches(subject + "b")).isTrue();
    }
}
