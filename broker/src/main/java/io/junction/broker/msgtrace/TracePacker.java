package io.junction.broker.msgtrace;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Packs many trace records into one trace message, as RocketMQ's {@code AsyncTraceDispatcher} does: the body is the
 * records one after the other (each already ends with {@link TraceRecords#FIELD}, so a decoder splits them apart again),
 * and the keys are every traced message id and key, once each, separated by spaces (RocketMQ's key separator), so the
 * query by message id as key still finds the message that holds its record.
 *
 * <p>A pack stops before the entry that would make the body or the key list too long: the keys travel in the
 * property string, whose length the record layout caps at 65,535 bytes.
 */
final class TracePacker {

    /** Longest key list of one trace message, in chars (the property string also holds the unique id and more). */
    static final int MAX_KEYS_CHARS = 32 * 1024;
    /** Longest body of one trace message: RocketMQ's clients stop their packs at 128,000 bytes as well. */
    static final int MAX_BODY_CHARS = 128_000;

    /** Writes one record's text (formatted on the writer's thread, not on the thread of the traced message). */
    @FunctionalInterface
    interface Text {
        void appendTo(StringBuilder out);
    }

    /** One record to write: its text and what its trace message must be found by. */
    record Entry(String traceTopic, Text text, String msgId, String keys) {

        /** An entry whose text is already a string. */
        static Entry of(final String traceTopic, final String data, final String msgId, final String keys) {
            return new Entry(traceTopic, out -> out.append(data), msgId, keys);
        }
    }

    /**
     * One trace message: its body and its space-separated keys.
     *
     * @param records     entries taken (the caller advances by this many)
     * @param unwritable  of those, entries whose text could not be written (left out, to be counted as dropped)
     */
    record Packed(String traceTopic, byte[] body, String keys, int records, int unwritable) {

        /** Records the body holds. */
        int written() {
            return records - unwritable;
        }
    }

    private TracePacker() {
    }

    /**
     * Packs {@code entries} from {@code from} (all for the trace topic of the first one) until one does not fit or
     * belongs to another trace topic; returns the pack, or null when {@code from} is the end. At least one entry is
     * always packed, so the caller advances by {@link Packed#records()} and never loops.
     */
    static Packed pack(final List<Entry> entries, final int from) {
        if (from >= entries.size()) {
            return null;
        }
        final String traceTopic = entries.get(from).traceTopic();
        final StringBuilder body = new StringBuilder(Math.min(MAX_BODY_CHARS, 256 * (entries.size() - from)));
        final Set<String> keys = new LinkedHashSet<>();
        int keysChars = 0;
        int unwritable = 0;
        int i = from;
        for (; i < entries.size(); i++) {
            final Entry e = entries.get(i);
            if (!e.traceTopic().equals(traceTopic)) {
                break;
            }
            final List<String> fresh = newKeys(e, keys);
            final int addedChars = chars(fresh);
            final boolean first = i == from;
            if (!first && keysChars + addedChars > MAX_KEYS_CHARS) {
                break;
            }
            final int before = body.length();
            try {
                e.text().appendTo(body);
            } catch (final RuntimeException bug) {
                body.setLength(before); // one record's fault must not stop the writer or lose the others
                unwritable++;
                continue;
            }
            if (!first && body.length() > MAX_BODY_CHARS) {
                body.setLength(before); // written next time, at the start of a pack
                break;
            }
            if (first && addedChars > MAX_KEYS_CHARS) {
                keys.add(e.msgId()); // keys too long to index: the id alone still finds the record
                keysChars += e.msgId().length() + 1;
            } else {
                keys.addAll(fresh);
                keysChars += addedChars;
            }
        }
        return new Packed(traceTopic, body.toString().getBytes(StandardCharsets.UTF_8), String.join(" ", keys),
                i - from, unwritable);
    }

    /** The id and keys of {@code e} not yet in {@code keys}, once each. */
    private static List<String> newKeys(final Entry e, final Set<String> keys) {
        final List<String> fresh = new ArrayList<>(2);
        if (!keys.contains(e.msgId())) {
            fresh.add(e.msgId());
        }
        if (e.keys() != null) {
            for (final String k : e.keys().split(" ")) {
                if (!k.isEmpty() && !keys.contains(k) && !fresh.contains(k)) {
                    fresh.add(k);
                }
            }
        }
        return fresh;
    }

    /** Chars {@code keys} take in the key list, each with its separator. */
    private static int chars(final List<String> keys) {
        int n = 0;
        for (final String k : keys) {
            n += k.length() + 1;
        }
        return n;
    }
}
