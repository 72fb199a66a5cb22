package io.junction.core.index;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IndexKeyHashTest {
    /** The hash index files were written with: the built string's. */
    private static int builtStringHash(final String topic, final String key) {
        return (topic + '#' + key).hashCode() & 0x7FFFFFFF;
    }

    @Test
    void shouldHashAsTheBuiltStringDid() {
        final String[][] cases = {
            {"orders", "7F0000011F9C18B4AAC2474B07F90000"},
            {"bench-junction-16671-4h7ih6h57", "AC11000200002A9F0000000000000000"},
            {"t", ""},
            {"%RETRY%group-a", "order-42"},
            {"topic", "ключ-日本-\uD83D\uDE00"},
        };
        for (String[] c : cases) {
            assertThat(IndexKeyHash.of(c[0], c[1])).as("%s#%s", c[0], c[1]).isEqualTo(builtStringHash(c[0], c[1]));
        }
    }

    @Test
    void shouldHashAKeyWithinALongerString() {
        final String keys = "alpha beta  gamma";
        assertThat(IndexKeyHash.of("orders", keys, 6, 10)).isEqualTo(builtStringHash("orders", "beta"));
        assertThat(IndexKeyHash.of("orders", keys, 12, 17)).isEqualTo(builtStringHash("orders", "gamma"));
    }

    @Test
    void shouldNeverBeNegative() {
        for (int i = 0; i < 10_000; i++) {
            assertThat(IndexKeyHash.of("topic-" + i, "key-" + (i * 7919))).isNotNegative();
        }
    }
}
