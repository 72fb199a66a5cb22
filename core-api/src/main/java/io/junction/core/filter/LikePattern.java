package io.junction.core.filter;

import java.util.ArrayList;
import java.util.List;

/**
 * A compiled JMS/SQL LIKE pattern: {@code %} matches any sequence, {@code _} exactly one character (code point), an
 * optional escape character makes the next character literal.
 *
 * <p>No regular expressions: the pattern is split at {@code %} into segments; the first is anchored at the start, the
 * last at the end, and each middle segment is matched at its leftmost occurrence (always optimal, because {@code %}
 * can absorb whatever lies between). That bounds the cost at O(subject × pattern) with no backtracking blow-up, which
 * matters because patterns come from untrusted subscribers.
 */
final class LikePattern {
    /** One %-free piece: literal chars, with {@code wild[i]} marking a {@code _}. */
    private static final class Segment {
        final char[] chars;
        final boolean[] wild;
        final boolean hasWild;

        Segment(final StringBuilder chars, final List<Boolean> wild) {
            this.chars = chars.toString().toCharArray();
            this.wild = new boolean[wild.size()];
            boolean any = false;
            for (int i = 0; i < this.wild.length; i++) {
                this.wild[i] = wild.get(i);
                any |= this.wild[i];
            }
            this.hasWild = any;
        }

        boolean isEmpty() {
            return chars.length == 0;
        }
    }

    private final String source;
    /** Segments between {@code %}s; one segment means the pattern has no {@code %}. */
    private final Segment[] segments;

    private LikePattern(final String source, final Segment[] segments) {
        this.source = source;
        this.segments = segments;
    }

    /**
     * @param pattern the pattern text
     * @param escape  the escape character, or -1 for none
     * @throws IllegalArgumentException if the pattern ends with the escape character
     */
    static LikePattern compile(final String pattern, final int escape) {
        final List<Segment> segments = new ArrayList<>();
        StringBuilder chars = new StringBuilder();
        List<Boolean> wild = new ArrayList<>();
        for (int i = 0; i < pattern.length(); i++) {
            final char c = pattern.charAt(i);
            if (escape >= 0 && c == escape) {
                if (++i == pattern.length()) {
                    throw new IllegalArgumentException("LIKE pattern ends with the escape character");
                }
                chars.append(pattern.charAt(i));
                wild.add(Boolean.FALSE);
            } else if (c == '%') {
                segments.add(new Segment(chars, wild));
                chars = new StringBuilder();
                wild = new ArrayList<>();
            } else {
                chars.append(c);
                wild.add(c == '_');
            }
        }
        segments.add(new Segment(chars, wild));
        return new LikePattern(pattern, segments.toArray(new Segment[0]));
    }

    boolean matches(final String s) {
        final int length = s.length();
        if (segments.length == 1) {
            return matchAt(s, 0, segments[0]) == length;
        }
        int position = 0;
        final Segment first = segments[0];
        if (!first.isEmpty()) {
            position = matchAt(s, 0, first);
            if (position < 0) {
                return false;
            }
        }
        for (int i = 1; i < segments.length - 1; i++) {
            final Segment middle = segments[i];
            if (middle.isEmpty()) {
                continue;
            }
            position = find(s, position, middle);
            if (position < 0) {
                return false;
            }
        }
        final Segment last = segments[segments.length - 1];
        if (last.isEmpty()) {
            return true;
        }
        if (!last.hasWild) {
            final int start = length - last.chars.length;
            return start >= position && matchAt(s, start, last) == length;
        }
        // '_' spans one code point, i.e. one or two chars, so the start of an anchored tail is not fixed.
        for (int start = position; start < length; start += Character.charCount(s.codePointAt(start))) {
            if (matchAt(s, start, last) == length) {
                return true;
            }
        }
        return false;
    }

    /** End of a match of the segment starting at {@code start}, or -1. */
    private static int matchAt(final String s, final int start, final Segment segment) {
        int p = start;
        final int length = s.length();
        for (int i = 0; i < segment.chars.length; i++) {
            if (p >= length) {
                return -1;
            }
            if (segment.wild[i]) {
                p += Character.charCount(s.codePointAt(p));
            } else if (s.charAt(p) == segment.chars[i]) {
                p++;
            } else {
                return -1;
            }
        }
        return p;
    }

    /** End of the leftmost match of a non-empty segment at or after {@code from}, or -1. */
    private static int find(final String s, final int from, final Segment segment) {
        for (int start = from; start < s.length(); start += Character.charCount(s.codePointAt(start))) {
            final int end = matchAt(s, start, segment);
            if (end >= 0) {
                return end;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return source;
    }
}
