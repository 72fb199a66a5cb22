package io.junction.remoting.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads a JSON (type 0) header straight into a command. Every request of a JSON client passes here, and a general
 * JSON library cost several microseconds and kilobytes of garbage per header; this reader knows the header's shape
 * (one object: ints, strings, an {@code extFields} object of strings) and walks the bytes once, making a string only
 * for what it keeps.
 *
 * <p>It accepts any JSON: keys it does not know are skipped whatever their value; an {@code extFields} value that is
 * not a string is kept as its JSON text (numbers and booleans as written, nested values verbatim). Bytes after the
 * header object are ignored. Anything else (broken syntax, an unterminated string, nesting deeper than
 * {@value #MAX_DEPTH}, a non-numeric int field) is a {@link HeaderException}, never another exception.
 */
final class JsonHeaderReader {
    static final int MAX_DEPTH = 64;

    private final byte[] in;
    /** The header's end in {@link #in}: the decoder reads headers into a reused array longer than the header. */
    private final int limit;
    private int pos;

    private JsonHeaderReader(final byte[] in, final int limit) {
        this.in = in;
        this.limit = limit;
    }

    static void read(final RemotingCommand cmd, final byte[] bytes) {
        read(cmd, bytes, bytes.length);
    }

    /** Reads the header in the first {@code length} bytes of {@code bytes}. */
    static void read(final RemotingCommand cmd, final byte[] bytes, final int length) {
        new JsonHeaderReader(bytes, length).header(cmd);
    }

    private void header(final RemotingCommand cmd) {
        if (next() != '{') {
            throw malformed("the JSON header is not an object");
        }
        pos++;
        cmd.version(0); // what the sender claims; absent means 0, not this server's version
        boolean hasCode = false;
        if (next() == '}') {
            throw new HeaderException("the JSON header has no int code");
        }
        while (true) {
            final String name = string();
            expect(':');
            switch (name) {
                case "code" -> {
                    if (isNull()) {
                        throw new HeaderException("the JSON header has no int code");
                    }
                    cmd.code(intValue(name));
                    hasCode = true;
                }
                case "language" -> cmd.language(isNull() ? "JAVA" : text());
                case "version" -> cmd.version(intValue(name));
                case "opaque" -> cmd.opaque(intValue(name));
                case "flag" -> cmd.flag(intValue(name));
                case "remark" -> cmd.remark(isNull() ? null : text());
                case "extFields" -> extFields(cmd);
                default -> skipValue(1);
            }
            if (!endOfMembers()) {
                break;
            }
        }
        if (!hasCode) {
            throw new HeaderException("the JSON header has no int code");
        }
    }

    private void extFields(final RemotingCommand cmd) {
        if (isNull()) {
            return;
        }
        if (next() != '{') {
            throw new HeaderException("extFields is not an object");
        }
        pos++;
        final Map<String, String> map = new HashMap<>(32); // a send header has 14 fields: no resize
        if (next() == '}') {
            pos++;
        } else {
            do {
                final String key = string();
                expect(':');
                if (isNull()) {
                    map.remove(key);
                } else {
                    map.put(key, text());
                }
            } while (endOfMembers());
        }
        cmd.extFields(map);
    }

    /** After a member: true at a comma (another member follows), false at the closing brace. */
    private boolean endOfMembers() {
        final int c = next();
        pos++;
        if (c == ',') {
            return true;
        }
        if (c == '}') {
            return false;
        }
        throw malformed("expected ',' or '}' at " + (pos - 1));
    }

    /** Consumes a null literal if one is next. */
    private boolean isNull() {
        if (next() == 'n') {
            literal("null");
            return true;
        }
        return false;
    }

    /** A value as text: a string's content, any other value's JSON text as written. */
    private String text() {
        if (next() == '"') {
            return string();
        }
        final int start = pos;
        skipValue(1);
        return new String(in, start, pos - start, StandardCharsets.UTF_8);
    }

    private int intValue(final String field) {
        final int c = next();
        if (c == 'n') {
            literal("null");
            return 0;
        }
        if (c != '-' && (c < '0' || c > '9')) {
            throw new HeaderException("the JSON header field " + field + " is not an int");
        }
        final int start = pos;
        final boolean integral = number();
        final String digits = new String(in, start, pos - start, StandardCharsets.ISO_8859_1);
        try {
            if (integral) {
                return Integer.parseInt(digits);
            }
            final double d = Double.parseDouble(digits);
            if (d >= Integer.MIN_VALUE && d <= Integer.MAX_VALUE) {
                return (int) d;
            }
        } catch (NumberFormatException e) {
            // out of int range: refused below
        }
        throw new HeaderException("the JSON header field " + field + " is not an int");
    }

    /** Skips one JSON number; returns whether it had neither fraction nor exponent. */
    private boolean number() {
        boolean integral = true;
        if (peek() == '-') {
            pos++;
        }
        if (digits() == 0) {
            throw malformed("bad number at " + pos);
        }
        if (peek() == '.') {
            pos++;
            integral = false;
            if (digits() == 0) {
                throw malformed("bad number at " + pos);
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            pos++;
            integral = false;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (digits() == 0) {
                throw malformed("bad number at " + pos);
            }
        }
        return integral;
    }

    private int digits() {
        final int start = pos;
        while (pos < limit && in[pos] >= '0' && in[pos] <= '9') {
            pos++;
        }
        return pos - start;
    }

    private void skipValue(final int depth) {
        if (depth > MAX_DEPTH) {
            throw malformed("nested deeper than " + MAX_DEPTH);
        }
        final int c = next();
        switch (c) {
            case '"' -> skipString();
            case '{' -> {
                pos++;
                if (next() == '}') {
                    pos++;
                    return;
                }
                do {
                    skipString();
                    expect(':');
                    skipValue(depth + 1);
                } while (endOfMembers());
            }
            case '[' -> {
                pos++;
                if (next() == ']') {
                    pos++;
                    return;
                }
                while (true) {
                    skipValue(depth + 1);
                    final int d = next();
                    pos++;
                    if (d == ']') {
                        return;
                    }
                    if (d != ',') {
                        throw malformed("expected ',' or ']' at " + (pos - 1));
                    }
                }
            }
            case 't' -> literal("true");
            case 'f' -> literal("false");
            case 'n' -> literal("null");
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    number();
                } else {
                    throw malformed("unexpected " + describe(c) + " at " + pos);
                }
            }
        }
    }

    private void skipString() {
        if (next() != '"') {
            throw malformed("expected a string at " + pos);
        }
        pos++;
        while (pos < limit) {
            final byte b = in[pos++];
            if (b == '"') {
                return;
            }
            if (b == '\\') {
                pos++;
            } else if (b >= 0 && b < 0x20) {
                throw malformed("control character in a string at " + (pos - 1));
            }
        }
        throw malformed("unterminated string");
    }

    /** A string token: plain ASCII (nearly always) straight from the bytes, otherwise decoded. */
    private String string() {
        if (next() != '"') {
            throw malformed("expected a string at " + pos);
        }
        final int start = ++pos;
        while (pos < limit) {
            final byte b = in[pos];
            if (b == '"') {
                pos++;
                final String known = HeaderWords.lookup(in, start, pos - 1 - start);
                return known != null ? known : new String(in, start, pos - 1 - start, StandardCharsets.ISO_8859_1);
            }
            if (b == '\\' || b < 0x20) { // b < 0 for bytes of multi-byte UTF-8 sequences
                return decodeString(start);
            }
            pos++;
        }
        throw malformed("unterminated string");
    }

    /**
     * The general case of {@link #string()}, from the string's first byte: escapes (a send's property string has
     * two per property) and UTF-8. Plain runs are copied in bulk into a byte array that becomes the string; only text
     * beyond Latin-1 (rare in headers) goes through a {@link StringBuilder}.
     */
    private String decodeString(final int start) {
        byte[] out = new byte[Math.max(16, pos - start + 32)];
        int n = 0;
        pos = start;
        while (pos < limit) {
            final int run = pos;
            while (pos < limit && in[pos] >= 0x20 && in[pos] != '"' && in[pos] != '\\') {
                pos++;
            }
            if (pos > run) {
                if (n + pos - run > out.length) {
                    out = Arrays.copyOf(out, Math.max(out.length * 2, n + pos - run));
                }
                System.arraycopy(in, run, out, n, pos - run);
                n += pos - run;
            }
            if (pos >= limit) {
                break;
            }
            final byte b = in[pos];
            if (b == '"') {
                pos++;
                return new String(out, 0, n, StandardCharsets.ISO_8859_1);
            }
            if (b < 0) {
                return decodeUnicode(start); // UTF-8 text: the general path
            }
            if (b != '\\') {
                throw malformed("control character in a string at " + pos);
            }
            if (pos + 1 >= limit) {
                throw malformed("unterminated string");
            }
            final char c = escape(in[pos + 1]);
            if (c > 0xFF) {
                return decodeUnicode(start);
            }
            if (n == out.length) {
                out = Arrays.copyOf(out, out.length * 2);
            }
            out[n++] = (byte) c;
        }
        throw malformed("unterminated string");
    }

    /** Reads the escape whose letter is {@code e} (the backslash at {@code pos}) and moves past it. */
    private char escape(final byte e) {
        pos += 2;
        return switch (e) {
            case '"' -> '"';
            case '\\' -> '\\';
            case '/' -> '/';
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case 'u' -> hexChar();
            default -> throw malformed("bad escape " + describe(e & 0xFF) + " at " + (pos - 2));
        };
    }

    /** A string with text beyond Latin-1, from its first byte. */
    private String decodeUnicode(final int start) {
        final StringBuilder sb = new StringBuilder(Math.max(16, pos - start + 16));
        pos = start;
        while (pos < limit) {
            final byte b = in[pos];
            if (b == '"') {
                pos++;
                return sb.toString();
            }
            if (b < 0) {
                final int run = pos;
                while (pos < limit && in[pos] < 0) {
                    pos++;
                }
                sb.append(new String(in, run, pos - run, StandardCharsets.UTF_8));
            } else if (b < 0x20) {
                throw malformed("control character in a string at " + pos);
            } else if (b == '\\') {
                if (pos + 1 >= limit) {
                    throw malformed("unterminated string");
                }
                sb.append(escape(in[pos + 1]));
            } else {
                sb.append((char) b);
                pos++;
            }
        }
        throw malformed("unterminated string");
    }

    private char hexChar() {
        if (pos + 4 > limit) {
            throw malformed("truncated \\u escape");
        }
        int v = 0;
        for (int i = 0; i < 4; i++) {
            final int d = Character.digit(in[pos + i], 16);
            if (d < 0) {
                throw malformed("bad \\u escape at " + (pos - 2));
            }
            v = (v << 4) | d;
        }
        pos += 4;
        return (char) v;
    }

    private void literal(final String word) {
        for (int i = 0; i < word.length(); i++) {
            if (pos + i >= limit || in[pos + i] != word.charAt(i)) {
                throw malformed("unexpected token at " + pos);
            }
        }
        pos += word.length();
    }

    private void expect(final char c) {
        if (next() != c) {
            throw malformed("expected '" + c + "' at " + pos);
        }
        pos++;
    }

    /** The next byte after white space (not consumed), or -1 at the end. */
    private int next() {
        while (pos < limit) {
            final byte b = in[pos];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return b & 0xFF;
            }
            pos++;
        }
        return -1;
    }

    private int peek() {
        return pos < limit ? in[pos] & 0xFF : -1;
    }

    private static String describe(final int c) {
        return c < 0 ? "end of input" : "'" + (char) c + "'";
    }

    private static HeaderException malformed(final String why) {
        return new HeaderException("malformed JSON: " + why);
    }
}
