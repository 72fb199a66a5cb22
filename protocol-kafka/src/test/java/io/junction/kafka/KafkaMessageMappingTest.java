package io.junction.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.ReservedPropertyTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

/** The Kafka record ↔ core message mapping, both ways, by table. */
class KafkaMessageMappingTest {
    private static final long NOW = 1_700_000_000_000L;

    private static byte[] utf8(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Header h(final String name, final byte[] value) {
        return new RecordHeader(name, value);
    }

    /** Records that must come back exactly as they went in. */
    private static List<KafkaRecord> records() {
        return List.of(
                new KafkaRecord(utf8("k1"), utf8("v1"), 1000, List.of()),
                new KafkaRecord(null, utf8("no key"), 1001, List.of(h("a", utf8("1")), h("b", utf8("two")))),
                new KafkaRecord(utf8("tomb"), null, 1002, List.of()),
                new KafkaRecord(new byte[] {(byte) 0xC3, 0x28, 0}, utf8("binary key"), 1003, List.of()),
                new KafkaRecord(utf8(""), new byte[0], 1004, List.of()),
                new KafkaRecord(utf8("k"), utf8("v"), 1005, List.of(h("v", new byte[] {1}), h("a", utf8("x")))),
                new KafkaRecord(utf8("k"), utf8("v"), 1006, List.of(h("dup", utf8("1")), h("dup", utf8("2")))),
                new KafkaRecord(utf8("k"), utf8("v"), 1007, List.of(h("n", null), h("KEYS", utf8("reserved")),
                        h("__x", utf8("y")), h("", utf8("empty name")))),
                new KafkaRecord(utf8("ключ"), utf8("значение"), 1008, List.of(h("ünï", utf8("cödé")))));
    }

    @Test
    void shouldBringEveryRecordBackExactly() {
        for (KafkaRecord r : records()) {
            final Message m = KafkaMessageMapping.toCore("topic", 2, r, NOW);
            assertThat(m.topic()).isEqualTo("topic");
            assertThat(m.queueId()).isEqualTo(2);
            final KafkaRecord back = KafkaMessageMapping.fromCore(m.properties(), m.body(), m.bornTimestamp());
            assertThat(back.key()).as("key of %s", r).isEqualTo(r.key());
            assertThat(back.value()).as("value of %s", r).isEqualTo(r.value());
            assertThat(back.timestamp()).isEqualTo(r.timestamp());
            assertThat(names(back.headers())).as("headers of %s", r).isEqualTo(names(r.headers()));
            m.properties().forEach((k, v) -> assertThat(MessageProperties.isEncodable(k)
                    && MessageProperties.isEncodable(v)).isTrue());
        }
    }

    @Test
    void shouldExposeTextKeysAndHeadersToOtherProtocols() {
        final Message m = KafkaMessageMapping.toCore("t", 0, new KafkaRecord(utf8("order-7"), utf8("{}"), -1,
                List.of(h("region", utf8("eu")), h("bin", new byte[] {0, 1}))), NOW);
        assertThat(m.keys()).isEqualTo("order-7");
        assertThat(m.messageGroup()).isEqualTo("order-7");
        assertThat(m.property("region")).isEqualTo("eu");
        assertThat(m.property("bin")).isNull();
        assertThat(m.property(KafkaMessageMapping.HEADERS)).isNotNull();
        assertThat(m.bornTimestamp()).isEqualTo(NOW); // no timestamp: the time it arrived
        final Message plain = KafkaMessageMapping.toCore("t", 0, new KafkaRecord(null, utf8("x"), 5,
                List.of(h("region", utf8("eu")))), NOW);
        assertThat(plain.property(KafkaMessageMapping.HEADERS)).isNull();
        assertThat(plain.messageGroup()).isNull();
    }

    @Test
    void shouldMapAMessageOfAnotherProtocol() {
        final Map<String, String> props = new LinkedHashMap<>();
        props.put(MessageProperties.TAGS, "TagA");
        props.put(MessageProperties.KEYS, "id-1");
        props.put(MessageProperties.UNIQUE_ID, "ABC");
        props.put("color", "red");
        props.put("mqtt.topic", "sensors/t1");
        props.put("__internal", "x");
        final KafkaRecord r = KafkaMessageMapping.fromCore(props, utf8("body"), 42);
        assertThat(r.key()).isEqualTo(utf8("id-1"));
        assertThat(r.value()).isEqualTo(utf8("body"));
        assertThat(r.timestamp()).isEqualTo(42);
        assertThat(names(r.headers())).containsExactly("color=red", "mqtt.topic=sensors/t1");
        final KafkaRecord grouped = KafkaMessageMapping.fromCore(Map.of(MessageProperties.MESSAGE_GROUP, "g1"),
                new byte[0], 1);
        assertThat(grouped.key()).isEqualTo(utf8("g1"));
        assertThat(grouped.value()).isEmpty();
    }

    @Test
    void shouldIgnoreAHeadersPropertyThatIsNotOurs() {
        final KafkaRecord r = KafkaMessageMapping.fromCore(Map.of(KafkaMessageMapping.HEADERS, "%%%",
                "a", "b"), new byte[0], 1);
        assertThat(names(r.headers())).containsExactly("a=b");
        assertThat(KafkaMessageMapping.decodeHeaders("AAAAAA==")).isNotNull().isEmpty();
        assertThat(KafkaMessageMapping.decodeHeaders("AAAAAQ==")).isNull(); // one header claimed, none there
    }

    private static List<String> names(final List<Header> headers) {
        final List<String> out = new ArrayList<>();
        for (Header h : headers) {
            out.add(h.key() + "=" + (h.value() == null ? "null" : isText(h.value())
                    ? new String(h.value(), StandardCharsets.UTF_8) : Arrays.toString(h.value())));
        }
        return out;
    }

    private static boolean isText(final byte[] b) {
        return KafkaMessageMapping.text(b) != null;
    }

    @Test
    void shouldGiveConsumersOrdinaryPropertiesOnlyAsHeadersAsTheCoreRuleSays() {
        final Map<String, String> props = new LinkedHashMap<>();
        for (String name : ReservedPropertyTable.RESERVED) {
            props.put(name, "forged");
        }
        for (String name : ReservedPropertyTable.ORDINARY) {
            props.put(name, "v-" + name);
        }
        final KafkaRecord r = KafkaMessageMapping.fromCore(props, new byte[0], 1);
        assertThat(r.headers()).extracting(Header::key).containsExactlyElementsOf(ReservedPropertyTable.ORDINARY);
    }
}
