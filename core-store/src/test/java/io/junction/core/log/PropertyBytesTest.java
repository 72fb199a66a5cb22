package io.junction.core.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PropertyBytesTest {
    private static final InetSocketAddress STORE = new InetSocketAddress("10.0.0.7", 10911);

    /** The bytes records held before: the property string, the assigned id appended, in UTF-8. */
    private static byte[] asBefore(final Map<String, String> properties, final String assignedUniqueId) {
        String encoded = MessageProperties.encode(properties);
        if (assignedUniqueId != null) {
            encoded = MessageProperties.append(encoded, MessageProperties.UNIQUE_ID, assignedUniqueId);
        }
        return encoded.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, String> map(final String... namesAndValues) {
        final Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            m.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return m;
    }

    private static List<Map<String, String>> table() {
        return List.of(
                map(),
                map("TAGS", "TagA", "KEYS", "k1 k2", "UNIQ_KEY", "7F0000011F9C18B4AAC2474B07F90000"),
                map("colour", "rouge-é", "名前", "値", "emoji", "\uD83D\uDE00"),
                map("lone-surrogate", "a\uD800b", "empty", ""),
                map("skipped", null, "kept", "yes"));
    }

    @Test
    void shouldWriteTheBytesThePropertyStringEncodedTo() {
        for (Map<String, String> properties : table()) {
            for (String assigned : new String[] {null, "AC11000200002A9F0000000000000000"}) {
                final byte[] expected = asBefore(properties, assigned);
                assertThat(PropertyBytes.length(properties, assigned)).as("%s", properties).isEqualTo(expected.length);
                for (ByteBuffer buf : new ByteBuffer[] {
                    ByteBuffer.allocate(expected.length + 16).position(5).slice().position(3),
                    ByteBuffer.allocateDirect(expected.length + 16).position(3),
                }) {
                    final int start = buf.position();
                    PropertyBytes.write(buf, properties, assigned);
                    assertThat(buf.position() - start).isEqualTo(expected.length);
                    final byte[] written = new byte[expected.length];
                    buf.get(start, written);
                    assertThat(written).as("%s in %s", properties, buf).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void shouldDecodeTheRenderedPropertiesFromARecord() {
        final Map<String, String> properties = map("TAGS", "TagA", "colour", "rouge-é", "n", "1");
        final Message m = Message.builder("orders").properties(properties).bornHost(STORE)
                .body("payload".getBytes(StandardCharsets.UTF_8)).build();
        final ByteBuffer record = RecordCodec.encode(m, STORE, "ID-1");
        RecordCodec.seal(record, 0, 0, 0, 1L, 0);
        assertThat(RecordCodec.check(record, 0, 0)).isEqualTo(record.limit());
        final StoredMessage stored = RecordCodec.decode(record);
        final Map<String, String> expected = new LinkedHashMap<>(properties);
        expected.put(MessageProperties.UNIQUE_ID, "ID-1");
        assertThat(stored.properties()).containsExactlyEntriesOf(expected);
    }

    @Test
    void shouldRefusePropertiesLongerThanTheLayoutHolds() {
        final char[] value = new char[RecordLayout.MAX_PROPERTIES_LENGTH];
        Arrays.fill(value, 'v');
        final Message m = Message.builder("orders").property("big", new String(value)).bornHost(STORE)
                .body(new byte[1]).build();
        assertThatThrownBy(() -> RecordCodec.encode(m, STORE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("properties too long");
    }
}
