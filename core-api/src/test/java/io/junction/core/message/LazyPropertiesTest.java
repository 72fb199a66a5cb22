package io.junction.core.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Answers read from the stored bytes equal the decoded map's, for every name, and leave the map undecoded. */
class LazyPropertiesTest {
    private static final String NV = "\u0001";
    private static final String P = "\u0002";

    /** The encoded string at an offset inside a larger buffer, as a record holds it. */
    private static Map<String, String> lazy(final String encoded) {
        final byte[] bytes = encoded.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer buffer = ByteBuffer.allocate(bytes.length + 9);
        buffer.put(5, bytes);
        return MessageProperties.decodeLazily(buffer.asReadOnlyBuffer(), 5, bytes.length);
    }

    @Test
    void shouldAnswerGetAsTheDecodedMapForEveryName() {
        final List<String> encodings = List.of(
                "KEYS" + NV + "order-1" + P + "UNIQ_KEY" + NV + "AB12" + P,
                "a" + NV + "1" + P + "a" + NV + "2" + P, // the last entry of a name wins
                "noSeparator" + P + NV + "emptyName" + P + "x" + NV + P, // skipped fragments, an empty value
                "ключ" + NV + "значение" + P + "k" + NV + "ü€" + P + "tail" + NV + "no-final-separator",
                "__kafka.key" + NV + "AAE=" + P + "KEYS" + NV + "" + P);
        final List<String> names = List.of("KEYS", "UNIQ_KEY", "a", "noSeparator", "emptyName", "x", "ключ", "k",
                "tail", "__kafka.key", "missing", "KEY", "KEYSS", "");
        for (String encoded : encodings) {
            final Map<String, String> expected = MessageProperties.decode(encoded);
            for (String name : names) {
                final Map<String, String> properties = lazy(encoded);
                assertEquals(expected.get(name), properties.get(name), encoded + " / " + name);
                assertEquals(expected.containsKey(name), properties.containsKey(name), encoded + " / " + name);
            }
            assertEquals(expected, lazy(encoded), encoded);
        }
    }

    @Test
    void shouldTellWhetherAnyNameIsUnreservedFromTheBytes() {
        assertFalse(MessageProperties.hasUnreservedName(lazy("KEYS" + NV + "k" + P + "UNIQ_KEY" + NV + "u" + P
                + "__kafka.key" + NV + "AAE=" + P + "__SHARDINGKEY" + NV + "g" + P)));
        assertTrue(MessageProperties.hasUnreservedName(lazy("KEYS" + NV + "k" + P + "region" + NV + "eu" + P)));
        assertTrue(MessageProperties.hasUnreservedName(lazy("_x" + NV + "1" + P)));
        assertFalse(MessageProperties.hasUnreservedName(lazy("noSeparator" + P)));
        final Map<String, String> plain = new LinkedHashMap<>();
        plain.put("TAGS", "t");
        assertFalse(MessageProperties.hasUnreservedName(plain));
        plain.put("color", "red");
        assertTrue(MessageProperties.hasUnreservedName(plain));
        final Map<String, String> decodedFirst = lazy("KEYS" + NV + "k" + P + "region" + NV + "eu" + P);
        assertEquals(2, decodedFirst.size());
        assertTrue(MessageProperties.hasUnreservedName(decodedFirst));
    }

    @Test
    void shouldTellReservedNamesFromTheBytesAsFromTheirText() {
        final List<String> names = new ArrayList<>(List.of("KEY", "KEYSS", "keys", "TAG", "UNIQ_KEYS", "_x",
                "__", "_", "région", "WAIT", "WAITS", "INNER_MULTI_QUEUE_OFFSET", "INNER_MULTI_QUEUE_OFFSET_"));
        names.addAll(List.of(MessageProperties.TAGS, MessageProperties.KEYS, MessageProperties.UNIQUE_ID,
                MessageProperties.MESSAGE_GROUP, MessageProperties.TOMBSTONE, MessageProperties.CHECK_TIMES));
        for (String name : names) {
            final Map<String, String> alone = lazy(name + NV + "v" + P);
            assertEquals(!MessageProperties.isReserved(name), MessageProperties.hasUnreservedName(alone), name);
            assertEquals("v", alone.get(name), name);
        }
    }
}
