package io.junction.core.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.message.MessageProperties;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class TagFilterTest {

    private static Map<String, String> tagged(final String tag) {
        return Map.of(MessageProperties.TAGS, tag);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"*", "  *  ", "   "})
    void shouldSelectEverythingForStarOrEmpty(final String expression) {
        final MessageFilter filter = TagFilter.parse(expression);
        assertThat(filter).isSameAs(MessageFilter.ALL);
        assertThat(filter.matchesTagHash(0)).isTrue();
        assertThat(filter.matches(Map.of())).isTrue();
    }

    @Test
    void shouldSplitOnDoublePipeTrimAndDropEmptyTags() {
        final TagFilter filter = (TagFilter) TagFilter.parse(" a ||b||  || c d ||");
        assertThat(filter.tags()).containsExactlyInAnyOrder("a", "b", "c d");
        assertThat(filter.matchesTagHash(TagFilter.tagHash("b"))).isTrue();
        assertThat(filter.matchesTagHash(TagFilter.tagHash("c d"))).isTrue();
        assertThat(filter.matchesTagHash(TagFilter.tagHash("d"))).isFalse();
        assertThat(filter.matches(tagged("c d"))).isTrue();
        assertThat(filter.matches(tagged("c"))).isFalse();
        assertThat(filter.matches(tagged(" a"))).isFalse();
    }

    @Test
    void shouldHashTagsAsTheQueueEntryStoresThem() {
        assertThat(TagFilter.tagHash(null)).isZero();
        assertThat(TagFilter.tagHash("")).isZero();
        assertThat(TagFilter.tagHash("TagA")).isEqualTo("TagA".hashCode());
        final String negative = "polygenelubricants";
        assertThat(negative.hashCode()).isNegative();
        assertThat(TagFilter.tagHash(negative)).isEqualTo((long) negative.hashCode()).isNegative();
        assertThat(TagFilter.parse(negative).matchesTagHash(TagFilter.tagHash(negative))).isTrue();
    }


    @Test
    void shouldPassCollidingHashInStageOneAndRejectInStageTwo() {
        assertThat("Aa".hashCode()).isEqualTo("BB".hashCode());
        final MessageFilter filter = TagFilter.parse("Aa");
        assertThat(filter.matchesTagHash(TagFilter.tagHash("BB"))).isTrue();
        assertThat(filter.matches(tagged("BB"))).isFalse();
        assertThat(filter.matches(tagged("Aa"))).isTrue();
    }

    @Test
    void shouldNotMatchMessagesWithoutTag() {
        final MessageFilter filter = TagFilter.parse("a || b");
        assertThat(filter.matchesTagHash(TagFilter.tagHash(null))).isFalse();
        assertThat(filter.matches(Map.of())).isFalse();
        assertThat(filter.matches(null)).isFalse();
    }

    @Test
    void shouldRejectUntaggedMessageInStageTwoWhenASubscribedTagHashesToZero() {
        assertThat("f5a5a608".hashCode()).isZero();
        final MessageFilter filter = TagFilter.parse("f5a5a608");
        assertThat(filter.matchesTagHash(TagFilter.tagHash(null))).isTrue();
        assertThat(filter.matches(Map.of())).isFalse();
        assertThat(filter.matches(tagged("f5a5a608"))).isTrue();
    }

    @Test
    void shouldIgnoreHashesOutsideIntRange() {
        final MessageFilter filter = TagFilter.parse("a");
        assertThat(filter.matchesTagHash("a".hashCode() + (1L << 32))).isFalse();
    }

    @Test
    void shouldTreatStarInsideAListAsALiteralTagAndSeparatorsOnlyAsNothing() {
        final MessageFilter withStar = TagFilter.parse("a || *");
        assertThat(withStar.matches(tagged("*"))).isTrue();
        assertThat(withStar.matches(tagged("b"))).isFalse();

        final MessageFilter separatorsOnly = TagFilter.parse("||");
        assertThat(separatorsOnly.matchesTagHash(TagFilter.tagHash("a"))).isFalse();
        assertThat(separatorsOnly.matches(tagged("a"))).isFalse();
    }
}
