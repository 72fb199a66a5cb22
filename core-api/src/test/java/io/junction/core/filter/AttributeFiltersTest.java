package io.junction.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class AttributeFiltersTest {
    /** The front-end's naming decision, stubbed: attribute "x" lives in property "ce_x"; "secret" is not exposed. */
    private static final Function<String, String> NAMES = a -> a.equals("secret") ? null : "ce_" + a;

    private static final Map<String, String> ORDER_CREATED = Map.of(
            "ce_type", "com.example.order.created",
            "ce_source", "/orders/eu",
            "ce_subject", "photo.png",
            "ce_size", "42");

    private static boolean matches(final Object filters) {
        return AttributeFilters.compile(filters, NAMES).matches(ORDER_CREATED);
    }

    @Test
    void shouldRequireEveryExactAttributeToBeEqual() {
        assertThat(matches(Map.of("exact", Map.of("type", "com.example.order.created")))).isTrue();
        assertThat(matches(Map.of("exact", Map.of("type", "com.example.order.created", "source", "/orders/eu"))))
                .isTrue();
        assertThat(matches(Map.of("exact", Map.of("type", "com.example.order.created", "source", "/orders"))))
                .isFalse();
        assertThat(matches(Map.of("exact", Map.of("type", "COM.EXAMPLE.ORDER.CREATED")))).isFalse();
        assertThat(matches(Map.of("exact", Map.of("missing", "x")))).isFalse();
    }

    @Test
    void shouldMatchPrefixAndSuffix() {
        assertThat(matches(Map.of("prefix", Map.of("type", "com.example.")))).isTrue();
        assertThat(matches(Map.of("prefix", Map.of("type", "org.")))).isFalse();
        assertThat(matches(Map.of("suffix", Map.of("subject", ".png")))).isTrue();
        assertThat(matches(Map.of("suffix", Map.of("subject", ".jpg")))).isFalse();
        assertThat(matches(Map.of("suffix", Map.of("missing", ".png")))).isFalse();
    }

    @Test
    void shouldCombineWithAllAnyAndNot() {
        final Object typeIsOrder = Map.of("prefix", Map.of("type", "com.example.order."));
        final Object fromUs = Map.of("prefix", Map.of("source", "/orders/us"));
        final Object fromEu = Map.of("prefix", Map.of("source", "/orders/eu"));
        assertThat(matches(Map.of("all", List.of(typeIsOrder, fromEu)))).isTrue();
        assertThat(matches(Map.of("all", List.of(typeIsOrder, fromUs)))).isFalse();
        assertThat(matches(Map.of("any", List.of(fromUs, fromEu)))).isTrue();
        assertThat(matches(Map.of("any", List.of(fromUs, Map.of("exact", Map.of("missing", "x")))))).isFalse();
        assertThat(matches(Map.of("not", fromUs))).isTrue();
        assertThat(matches(Map.of("not", Map.of("not", fromUs)))).isFalse();
        assertThat(matches(Map.of("not", Map.of("exact", Map.of("missing", "x"))))).isTrue();
    }

    @Test
    void shouldTreatTheFiltersArrayAsAllAndNothingAsEverything() {
        assertThat(matches(List.of(Map.of("prefix", Map.of("type", "com.")), Map.of("suffix", Map.of("subject", "png")))))
                .isTrue();
        assertThat(matches(List.of(Map.of("prefix", Map.of("type", "com.")), Map.of("suffix", Map.of("subject", "gif")))))
                .isFalse();
        assertThat(AttributeFilters.compile(List.of(), NAMES)).isSameAs(MessageFilter.ALL);
        assertThat(AttributeFilters.compile(null, NAMES)).isSameAs(MessageFilter.ALL);
    }

    @Test
    void shouldDelegateSqlWithAttributeNamesMapped() {
        assertThat(matches(Map.of("sql", "type LIKE 'com.example.%' AND size > 40"))).isTrue();
        assertThat(matches(Map.of("sql", "type LIKE 'com.example.%' AND size > 42"))).isFalse();
        assertThat(matches(Map.of("not", Map.of("sql", "missing = 'x'")))).isTrue();
        assertThatThrownBy(() -> AttributeFilters.compile(Map.of("sql", "type = "), NAMES))
                .isInstanceOf(FilterSyntaxException.class)
                .hasMessageStartingWith("column 8: expected a property, literal or '('");
        assertThatThrownBy(() -> AttributeFilters.compile(Map.of("sql", "secret = 'x'"), NAMES))
                .isInstanceOf(FilterSyntaxException.class)
                .hasMessageStartingWith("column 1: unknown attribute 'secret'");
    }

    @Test
    void shouldNeverExcludeOnTagHash() {
        assertThat(AttributeFilters.compile(Map.of("exact", Map.of("type", "t")), NAMES).matchesTagHash(123L)).isTrue();
        assertThat(AttributeFilters.compile(Map.of("not", Map.of("exact", Map.of("type", "t"))), NAMES)
                .matchesTagHash(0L)).isTrue();
    }

    @Test
    void shouldRejectMalformedDefinitionsNamingThePath() {
        final Map<String, Object> twoDialects = new LinkedHashMap<>();
        twoDialects.put("exact", Map.of("type", "a"));
        twoDialects.put("prefix", Map.of("type", "a"));
        assertInvalid(List.of(Map.of("exact", Map.of("type", "a")), Map.of("regex", "a.*")),
                "filters[1]: unsupported filter dialect 'regex': expected exact, prefix, suffix, all, any, not or sql");
        assertInvalid(twoDialects, "filter: expected exactly one dialect but found [exact, prefix]");
        assertInvalid(Map.of("exact", Map.of()), "filter.exact: expected an object of attribute names to values");
        assertInvalid(Map.of("exact", Map.of("type", "")), "filter.exact.type: expected a non-empty string");
        assertInvalid(Map.of("exact", Map.of("type", 5)), "filter.exact.type: expected a non-empty string but found 5");
        assertInvalid(Map.of("exact", Map.of("", "a")), "filter.exact: attribute name must not be empty");
        assertInvalid(Map.of("all", List.of(Map.of("any", List.of(Map.of("exact", Map.of("secret", "a")))))),
                "filter.all[0].any[0].exact.secret: unknown attribute 'secret'");
        assertInvalid(Map.of("any", List.of()), "filter.any: expected a non-empty array of filter expressions");
        assertInvalid(Map.of("not", List.of()), "filter.not: expected an object with one dialect");
        assertInvalid(Map.of("sql", 1), "filter.sql: expected a string but found 1");
        assertInvalid("exact", "filter: expected an object with one dialect but found \"exact\"");
    }

    private static void assertInvalid(final Object filters, final String messagePrefix) {
        assertThatThrownBy(() -> AttributeFilters.compile(filters, NAMES))
                .isInstanceOf(InvalidFilterException.class)
                .hasMessageStartingWith(messagePrefix);
    }
}
