package io.junction.core.index;

/**
 * The hash an index entry stores for a key: {@code String.hashCode()} of {@code topic + '#' + key}, non-negative,
 * computed from the parts without building that string (the dispatcher indexes every record's unique id, and built
 * and hashed a new string of 60-odd characters for each). The value must stay what it was when files on disk were
 * written: index files outlive the process, and lookups compare stored hashes.
 */
final class IndexKeyHash {
    private static final char SEPARATOR = '#';

    private IndexKeyHash() {
    }

    /** The hash of {@code topic#key}. */
    static int of(final String topic, final String key) {
        return of(topic, key, 0, key.length());
    }

    /** The hash of {@code topic#} followed by {@code text}'s characters in [from, to). */
    static int of(final String topic, final String text, final int from, final int to) {
        // String.hashCode is the polynomial sum of s[i] * 31^(n-1-i); hashing the topic's cached value on from there
        // gives the concatenation's hash.
        int h = 31 * topic.hashCode() + SEPARATOR;
        for (int i = from; i < to; i++) {
            h = 31 * h + text.charAt(i);
        }
        return h & 0x7FFFFFFF;
    }
}
