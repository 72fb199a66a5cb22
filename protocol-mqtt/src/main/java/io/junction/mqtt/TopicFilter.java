package io.junction.mqtt;

import java.util.List;
import java.util.Objects;

/**
 * An MQTT topic filter (spec 4.7): levels split on {@code /}, {@code +} matches one level, {@code #} (last only) the
 * parent and every level below. A filter starting with a wildcard does not match topics starting with {@code $}
 * (4.7.2-1). Shared filters {@code $share/{group}/{filter}} (4.8.2) carry their share group.
 */
final class TopicFilter {
    private static final String SHARE_PREFIX = "$share/";

    private final String text;
    private final String shareGroup;
    private final String filter;
    private final String[] levels;

    private TopicFilter(final String text, final String shareGroup, final String filter) {
        this.text = text;
        this.shareGroup = shareGroup;
        this.filter = filter;
        this.levels = filter.split("/", -1);
    }

    /** Parses a subscription's filter; null when it is malformed. */
    static TopicFilter parse(final String text) {
        if (text == null || text.isEmpty() || text.length() > 65535 || text.indexOf('\0') >= 0) {
            return null;
        }
        String group = null;
        String filter = text;
        if (text.startsWith(SHARE_PREFIX)) {
            final int slash = text.indexOf('/', SHARE_PREFIX.length());
            if (slash <= SHARE_PREFIX.length() || slash == text.length() - 1) {
                return null;
            }
            group = text.substring(SHARE_PREFIX.length(), slash);
            if (group.indexOf('+') >= 0 || group.indexOf('#') >= 0) {
                return null;
            }
            filter = text.substring(slash + 1);
        }
        final String[] levels = filter.split("/", -1);
        for (int i = 0; i < levels.length; i++) {
            final String level = levels[i];
            if (level.indexOf('#') >= 0 && (!level.equals("#") || i != levels.length - 1)) {
                return null;
            }
            if (level.indexOf('+') >= 0 && !level.equals("+")) {
                return null;
            }
        }
        return new TopicFilter(text, group, filter);
    }

    /** Whether a PUBLISH topic name is valid: non-empty, no wildcards, no NUL (3.3.2-1, 4.7.3). */
    static boolean isValidTopicName(final String topic) {
        return topic != null && !topic.isEmpty() && topic.indexOf('+') < 0 && topic.indexOf('#') < 0
                && topic.indexOf('\0') < 0;
    }

    /** The filter as the client sent it (with any {@code $share/group/} prefix). */
    String text() {
        return text;
    }

    /** The share group, or null for a normal subscription. */
    String shareGroup() {
        return shareGroup;
    }

    boolean shared() {
        return shareGroup != null;
    }

    /** The filter without the share prefix. */
    String filter() {
        return filter;
    }

    /** The core topic this filter reads, or null when its first level is a wildcard (it reads every topic). */
    String coreTopic() {
        final String first = levels[0];
        return first.equals("+") || first.equals("#") ? null : CoreTopics.escape(first);
    }

    boolean matches(final String topic) {
        if (topic.startsWith("$") && (levels[0].equals("+") || levels[0].equals("#"))) {
            return false;
        }
        int start = 0;
        for (int i = 0; i < levels.length; i++) {
            final String level = levels[i];
            if (level.equals("#")) {
                return true;
            }
            if (start > topic.length()) {
                // Topic ran out of levels: "a/#" matches "a" (handled above only when '#' is next).
                return false;
            }
            int end = topic.indexOf('/', start);
            if (end < 0) {
                end = topic.length();
            }
            if (!level.equals("+") && !topic.regionMatches(start, level, 0, level.length())
                    || !level.equals("+") && end - start != level.length()) {
                return false;
            }
            start = end + 1;
            if (end == topic.length()) {
                // Last topic level consumed: match if the filter ends here or continues with just "#".
                return i == levels.length - 1 || i == levels.length - 2 && levels[i + 1].equals("#");
            }
        }
        return false;
    }

    /**
     * Whether this filter matches every topic {@code other} matches (the share prefixes aside): compared level by
     * level, {@code #} covers the rest, {@code +} covers one level of anything but a {@code $} first level, and a
     * literal level covers only itself.
     */
    boolean covers(final TopicFilter other) {
        final String[] theirs = other.levels;
        for (int i = 0; i < levels.length; i++) {
            final String mine = levels[i];
            final boolean wildcardFirst = i == 0 && (mine.equals("+") || mine.equals("#"));
            if (wildcardFirst && theirs.length > 0 && theirs[0].startsWith("$")) {
                return false; // 4.7.2-1: a leading wildcard never matches $ topics, which theirs do
            }
            if (mine.equals("#")) {
                return true;
            }
            if (i >= theirs.length || theirs[i].equals("#")) {
                return false; // theirs matches topics shorter or deeper than this filter can
            }
            if (!mine.equals("+") && !mine.equals(theirs[i])) {
                return false;
            }
        }
        return theirs.length == levels.length;
    }

    static boolean anyMatches(final List<TopicFilter> filters, final String topic) {
        for (TopicFilter f : filters) {
            if (f.matches(topic)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof TopicFilter t && t.text.equals(text);
    }

    @Override
    public int hashCode() {
        return Objects.hash(text);
    }

    @Override
    public String toString() {
        return text;
    }
}
