package io.junction.broker.console;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * A bounded look at a message body: its first {@value #MAX_BYTES} bytes as text when they are UTF-8 without control
 * characters (other than tab and line breaks), else as hex. The whole body is never copied.
 */
final class BodyPreview {

    static final int MAX_BYTES = 4096;

    private BodyPreview() {
    }

    /** Adds {@code bodySize}, {@code bodyEncoding} ("text" or "hex"), {@code body} and {@code bodyTruncated}. */
    static void describe(final ByteBuffer body, final ObjectNode into) {
        final int size = body.remaining();
        final int shown = Math.min(size, MAX_BYTES);
        final byte[] head = new byte[shown];
        body.duplicate().get(head);
        final String text = text(head, shown < size);
        into.put("bodySize", size).put("bodyShownBytes", shown).put("bodyTruncated", shown < size)
                .put("bodyEncoding", text != null ? "text" : "hex")
                .put("body", text != null ? text : HexFormat.ofDelimiter(" ").formatHex(head));
    }

    /** The bytes as text, or null when they are not printable UTF-8 (a cut may split the last character). */
    private static String text(final byte[] bytes, final boolean cut) {
        final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        final CharBuffer out = CharBuffer.allocate(bytes.length);
        if (decoder.decode(in, out, !cut).isError()) {
            return null;
        }
        if (!cut) {
            try {
                decoder.flush(out);
            } catch (final IllegalStateException e) {
                return null;
            }
        } else if (in.remaining() > 3) {
            return null; // more than a split last character is left undecoded
        }
        out.flip();
        for (int i = 0; i < out.length(); i++) {
            final char c = out.charAt(i);
            if (Character.isISOControl(c) && c != '\t' && c != '\n' && c != '\r') {
                return null;
            }
        }
        return out.toString();
    }
}
