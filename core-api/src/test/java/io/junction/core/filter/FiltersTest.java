package io.junction.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.message.MessageProperties;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FiltersTest {

    @Test
    void shouldResolveRocketMqExpressionTypeNames() {
        assertThat(FilterType.of("TAG")).isEqualTo(FilterType.TAG);
        assertThat(FilterType.of("SQL92")).isEqualTo(FilterType.SQL92);
        assertThat(FilterType.of("sql92")).isEqualTo(FilterType.SQL92);
        assertThat(FilterType.of(null)).isEqualTo(FilterType.TAG);
        assertThat(FilterType.of("")).isEqualTo(FilterType.TAG);
        assertThatThrownBy(() -> FilterType.of("CLASS"))
                .isInstanceOf(InvalidFilterException.class)
                .hasMessage("unsupported expression type 'CLASS': expected TAG or SQL92");
    }

    @Test
    void shouldCompileTagExpressions() {
        final MessageFilter filter = Filters.compile(FilterType.TAG, "a || b");
        assertThat(filter).isInstanceOf(TagFilter.class);
        assertThat(filter.matchesTagHash(TagFilter.tagHash("a"))).isTrue();
        assertThat(filter.matchesTagHash(TagFilter.tagHash("c"))).isFalse();
        assertThat(filter.matches(Map.of(MessageProperties.TAGS, "b"))).isTrue();
        assertThat(Filters.compile("TAG", "*")).isSameAs(MessageFilter.ALL);
    }

    @Test
    void shouldCompileSql92ExpressionsThatCannotDecideOnTagHash() {
        final MessageFilter filter = Filters.compile("SQL92", "region = 'eu' AND TAGS = 'a'");
        assertThat(filter).isInstanceOf(SqlFilter.class);
        assertThat(filter.matchesTagHash(0L)).isTrue();
        assertThat(filter.matchesTagHash(12345L)).isTrue();
        assertThat(filter.matches(Map.of("region", "eu", MessageProperties.TAGS, "a"))).isTrue();
        assertThat(filter.matches(Map.of("region", "us", MessageProperties.TAGS, "a"))).isFalse();
    }

    @Test
    void shouldThrowSyntaxExceptionForBadSql92() {
        assertThatThrownBy(() -> Filters.compile(FilterType.SQL92, "a >"))
                .isInstanceOf(FilterSyntaxException.class)
                .hasMessageStartingWith("column 4: expected a property, literal or '(' but found end of expression");
        assertThatThrownBy(() -> Filters.compile(FilterType.SQL92, null))
                .isInstanceOf(FilterSyntaxException.class);
    }

    @Test
    void shouldCompileJmsSelectorsWithBlankMeaningAll() {
        assertThat(Filters.jmsSelector(null)).isSameAs(MessageFilter.ALL);
        assertThat(Filters.jmsSelector("  ")).isSameAs(MessageFilter.ALL);
        final MessageFilter selector = Filters.jmsSelector("JMSType = 'car' AND color LIKE 'bl%' AND weight > 2500");
        assertThat(selector.matches(Map.of("JMSType", "car", "color", "blue", "weight", "3000"))).isTrue();
        assertThat(selector.matches(Map.of("JMSType", "car", "color", "red", "weight", "3000"))).isFalse();
    }
}
