package io.junction.amqp;

import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedByte;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.UnsignedShort;

/**
 * AMQP simple values as core property text and back. Core properties are strings; the AMQP type of a non-string value
 * is kept as a one-letter code (in the {@value AmqpMessageMapping#TYPES} property) so an AMQP or JMS consumer gets an
 * {@code int} back where an {@code int} was sent, and selectors compare numbers as numbers.
 */
final class TypedValues {
    /** Code of a value kept as plain text (strings, and anything this mapping does not type). */
    static final char STRING = 0;

    private TypedValues() {
    }

    /** The type code of a value, {@link #STRING} for a string, or '?' when the value is not a simple type. */
    static char codeOf(final Object v) {
        if (v instanceof String) {
            return STRING;
        } else if (v instanceof Boolean) {
            return 'z';
        } else if (v instanceof Byte) {
            return 'b';
        } else if (v instanceof Short) {
            return 's';
        } else if (v instanceof Integer) {
            return 'i';
        } else if (v instanceof Long) {
            return 'l';
        } else if (v instanceof Float) {
            return 'f';
        } else if (v instanceof Double) {
            return 'd';
        } else if (v instanceof Character) {
            return 'c';
        } else if (v instanceof Date) {
            return 't';
        } else if (v instanceof Symbol) {
            return 'y';
        } else if (v instanceof UnsignedByte) {
            return 'B';
        } else if (v instanceof UnsignedShort) {
            return 'S';
        } else if (v instanceof UnsignedInteger) {
            return 'I';
        } else if (v instanceof UnsignedLong) {
            return 'L';
        } else if (v instanceof UUID) {
            return 'u';
        } else if (v instanceof Binary) {
            return 'x';
        }
        return '?';
    }

    /** The text of a simple value (see {@link #codeOf}). */
    static String text(final Object v) {
        if (v instanceof Date d) {
            return Long.toString(d.getTime());
        } else if (v instanceof Binary b) {
            return Base64.getEncoder().encodeToString(b.getArray().length == b.getLength() && b.getArrayOffset() == 0
                    ? b.getArray() : Arrays.copyOfRange(b.getArray(), b.getArrayOffset(),
                    b.getArrayOffset() + b.getLength()));
        }
        return String.valueOf(v);
    }

    /** The value a text of type {@code code} stands for; the text itself when it does not parse. */
    static Object value(final char code, final String text) {
        try {
            return switch (code) {
                case 'z' -> Boolean.valueOf(text);
                case 'b' -> Byte.valueOf(text);
                case 's' -> Short.valueOf(text);
                case 'i' -> Integer.valueOf(text);
                case 'l' -> Long.valueOf(text);
                case 'f' -> Float.valueOf(text);
                case 'd' -> Double.valueOf(text);
                case 'c' -> text.isEmpty() ? text : Character.valueOf(text.charAt(0));
                case 't' -> new Date(Long.parseLong(text));
                case 'y' -> Symbol.valueOf(text);
                case 'B' -> UnsignedByte.valueOf(text);
                case 'S' -> UnsignedShort.valueOf(text);
                case 'I' -> UnsignedInteger.valueOf(text);
                case 'L' -> UnsignedLong.valueOf(text);
                case 'u' -> UUID.fromString(text);
                case 'x' -> new Binary(Base64.getDecoder().decode(text));
                default -> text;
            };
        } catch (IllegalArgumentException e) {
            return text;
        }
    }

    /**
     * A message or correlation id as text, following the AMQP JMS mapping's prefixes for the non-string id types
     * ({@code AMQP_ULONG:}, {@code AMQP_UUID:}, {@code AMQP_BINARY:}); a string that itself starts with such a prefix
     * is marked with {@code AMQP_STRING:}.
     */
    static String idText(final Object id) {
        if (id == null) {
            return null;
        } else if (id instanceof String s) {
            return s.startsWith("AMQP_") ? "AMQP_STRING:" + s : s;
        } else if (id instanceof UnsignedLong l) {
            return "AMQP_ULONG:" + l;
        } else if (id instanceof UUID u) {
            return "AMQP_UUID:" + u;
        } else if (id instanceof Binary b) {
            final StringBuilder sb = new StringBuilder("AMQP_BINARY:");
            for (int i = 0; i < b.getLength(); i++) {
                sb.append(String.format("%02X", b.getArray()[b.getArrayOffset() + i] & 0xFF));
            }
            return sb.toString();
        }
        return String.valueOf(id);
    }

    /** The id a text made by {@link #idText} stands for. */
    static Object id(final String text) {
        if (text == null || !text.startsWith("AMQP_")) {
            return text;
        }
        try {
            if (text.startsWith("AMQP_STRING:")) {
                return text.substring(12);
            } else if (text.startsWith("AMQP_ULONG:")) {
                return UnsignedLong.valueOf(text.substring(11));
            } else if (text.startsWith("AMQP_UUID:")) {
                return UUID.fromString(text.substring(10));
            } else if (text.startsWith("AMQP_BINARY:")) {
                final String hex = text.substring(12);
                final byte[] b = new byte[hex.length() / 2];
                for (int i = 0; i < b.length; i++) {
                    b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
                }
                return new Binary(b);
            }
        } catch (IllegalArgumentException e) {
            return text;
        }
        return text;
    }

    /** {@code text} as the type its code in {@code types} names, or as text when it has none. */
    static Object typed(final String name, final String text, final Map<String, Character> types) {
        final Character code = types == null ? null : types.get(name);
        return code == null ? text : TypedValues.value(code, text);
    }

    /** The type codes of an encoded {@code c:name,c:name} list, by name; null when there are none. */
    static Map<String, Character> codes(final String encoded) {
        if (encoded == null || encoded.isEmpty()) {
            return null;
        }
        final Map<String, Character> map = new HashMap<>();
        int start = 0;
        while (start < encoded.length()) {
            int end = encoded.indexOf(',', start);
            if (end < 0) {
                end = encoded.length();
            }
            if (end - start > 2 && encoded.charAt(start + 1) == ':') {
                map.put(encoded.substring(start + 2, end), encoded.charAt(start));
            }
            start = end + 1;
        }
        return map;
    }
}
