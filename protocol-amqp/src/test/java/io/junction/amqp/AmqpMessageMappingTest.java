package io.junction.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.ReservedPropertyTable;
import io.junction.core.message.StoredMessage;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.qpid.proton.Proton;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.UnsignedInteger;
import org.apache.qpid.proton.amqp.UnsignedLong;
import org.apache.qpid.proton.amqp.messaging.AmqpSequence;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The AMQP ↔ core mapping by table: every row goes AMQP → core → AMQP and must come back the same. */
class AmqpMessageMappingTest {
    private final AmqpMessageMapping mapping = new AmqpMessageMapping();

    record Row(String name, Consumer<org.apache.qpid.proton.message.Message> sent,
               Consumer<org.apache.qpid.proton.message.Message> check) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Row> rows() {
        return Stream.of(
                new Row("string value body", m -> m.setBody(new AmqpValue("héllo")),
                        m -> assertThat(((AmqpValue) m.getBody()).getValue()).isEqualTo("héllo")),
                new Row("data body", m -> m.setBody(new Data(new Binary(new byte[] {1, 2, 3}))),
                        m -> assertThat(((Data) m.getBody()).getValue()).isEqualTo(new Binary(new byte[] {1, 2, 3}))),
                new Row("map value body", m -> m.setBody(new AmqpValue(Map.of("a", 1, "b", "two"))),
                        m -> assertThat(((AmqpValue) m.getBody()).getValue()).isEqualTo(Map.of("a", 1, "b", "two"))),
                new Row("list value body", m -> m.setBody(new AmqpValue(List.of("x", 2L, true))),
                        m -> assertThat(((AmqpValue) m.getBody()).getValue()).isEqualTo(List.of("x", 2L, true))),
                new Row("sequence body", m -> m.setBody(new AmqpSequence(List.of(1, 2, 3))),
                        m -> assertThat((Object) ((AmqpSequence) m.getBody()).getValue()).isEqualTo(List.of(1, 2, 3))),
                new Row("string message id", m -> m.setMessageId("ID:abc:1:1:1-1"),
                        m -> assertThat(m.getMessageId()).isEqualTo("ID:abc:1:1:1-1")),
                new Row("ulong message id", m -> m.setMessageId(UnsignedLong.valueOf(42)),
                        m -> assertThat(m.getMessageId()).isEqualTo(UnsignedLong.valueOf(42))),
                new Row("uuid correlation id",
                        m -> m.setCorrelationId(UUID.fromString("123e4567-e89b-12d3-a456-426614174000")),
                        m -> assertThat(m.getCorrelationId())
                                .isEqualTo(UUID.fromString("123e4567-e89b-12d3-a456-426614174000"))),
                new Row("binary correlation id", m -> m.setCorrelationId(new Binary(new byte[] {9, 8})),
                        m -> assertThat(m.getCorrelationId()).isEqualTo(new Binary(new byte[] {9, 8}))),
                new Row("subject, reply-to, content type, group", m -> {
                    m.setSubject("invoice");
                    m.setReplyTo("replies");
                    m.setContentType("text/plain");
                    m.setGroupId("g1");
                    m.setGroupSequence(3);
                }, m -> {
                    assertThat(m.getSubject()).isEqualTo("invoice");
                    assertThat(m.getReplyTo()).isEqualTo("replies");
                    assertThat(m.getContentType()).isEqualTo("text/plain");
                    assertThat(m.getGroupId()).isEqualTo("g1");
                    assertThat(m.getGroupSequence()).isEqualTo(3);
                }),
                new Row("header", m -> {
                    m.setDurable(false);
                    m.setPriority((short) 7);
                    m.setTtl(60_000);
                }, m -> {
                    assertThat(m.isDurable()).isFalse();
                    assertThat(m.getPriority()).isEqualTo((short) 7);
                    assertThat(m.getTtl()).isEqualTo(60_000);
                    assertThat(m.getExpiryTime()).isGreaterThan(System.currentTimeMillis());
                }),
                new Row("typed application properties", m -> {
                    final Map<String, Object> p = new LinkedHashMap<>();
                    p.put("s", "text");
                    p.put("i", 7);
                    p.put("l", 1L << 40);
                    p.put("z", true);
                    p.put("d", 2.5);
                    p.put("f", 1.25f);
                    p.put("b", (byte) -3);
                    p.put("h", (short) 12);
                    p.put("u", UnsignedInteger.valueOf(5));
                    m.setApplicationProperties(new ApplicationProperties(p));
                }, m -> assertThat(m.getApplicationProperties().getValue()).containsExactlyInAnyOrderEntriesOf(Map.of(
                        "s", "text", "i", 7, "l", 1L << 40, "z", true, "d", 2.5, "f", 1.25f, "b", (byte) -3,
                        "h", (short) 12, "u", UnsignedInteger.valueOf(5)))),
                new Row("message annotations", m -> m.setMessageAnnotations(new MessageAnnotations(Map.of(
                        Symbol.valueOf("x-opt-jms-msg-type"), (byte) 5, Symbol.valueOf("x-opt-jms-dest"), (byte) 0))),
                        m -> assertThat(m.getMessageAnnotations().getValue()).containsEntry(
                                Symbol.valueOf("x-opt-jms-msg-type"), (byte) 5).containsEntry(
                                Symbol.valueOf("x-opt-jms-dest"), (byte) 0)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void shouldRoundTrip(final Row row) throws Exception {
        final org.apache.qpid.proton.message.Message sent = Proton.message();
        sent.setBody(new AmqpValue("body"));
        row.sent().accept(sent);
        final org.apache.qpid.proton.message.Message back = roundTrip(sent);
        row.check().accept(back);
    }

    @Test
    void shouldTurnTheDeliveryTimeAnnotationIntoDeliverAt() throws Exception {
        final long at = System.currentTimeMillis() + 60_000;
        final org.apache.qpid.proton.message.Message sent = Proton.message();
        sent.setMessageAnnotations(new MessageAnnotations(Map.of(AmqpMessageMapping.DELIVERY_TIME, new Date(at))));
        sent.setBody(new AmqpValue("later"));
        final AmqpMessageMapping.Inbound in = toCore(sent);
        assertThat(in.deliverAt()).isEqualTo(at);
        final org.apache.qpid.proton.message.Message back = roundTrip(sent);
        assertThat(back.getMessageAnnotations().getValue()).containsEntry(AmqpMessageMapping.DELIVERY_TIME, at);
    }

    @Test
    void shouldMapAForeignMessageToADataSectionWithItsProperties() {
        final Map<String, String> props = new LinkedHashMap<>();
        props.put(MessageProperties.TAGS, "TagA");
        props.put(MessageProperties.UNIQUE_ID, "ABC123");
        props.put(MessageProperties.CONTENT_TYPE, "application/json");
        props.put("line", "7");
        props.put("WAIT", "true");
        final org.apache.qpid.proton.message.Message m = decode(stored("orders", props, "{}".getBytes()), 2);
        assertThat(((Data) m.getBody()).getValue()).isEqualTo(new Binary("{}".getBytes()));
        assertThat(m.getMessageId()).isEqualTo("ABC123");
        assertThat(m.getContentType()).isEqualTo("application/json");
        assertThat(m.getAddress()).isEqualTo("orders");
        assertThat(m.getDeliveryCount()).isEqualTo(2);
        assertThat(m.getApplicationProperties().getValue()).containsExactlyInAnyOrderEntriesOf(
                Map.of("TAGS", "TagA", "line", "7"));
    }

    @Test
    void shouldMapReplyToAndCorrelationIdOntoTheCanonicalReplyPair() throws Exception {
        final org.apache.qpid.proton.message.Message sent = Proton.message();
        sent.setBody(new AmqpValue("ping"));
        sent.setReplyTo("amqp-temp-1 x/y");
        sent.setCorrelationId("req-9");
        final Message core = toCore(sent).toMessage("svc", 0, 1);
        assertThat(core.properties()).containsEntry(MessageProperties.REPLY_TO, "amqp-temp-1%20x%2Fy")
                .containsEntry(MessageProperties.CORRELATION_ID, "req-9");

        // another protocol's request: an MQTT response topic of two levels, a RocketMQ requester's reply topic
        final Map<String, String> mqtt = Map.of(MessageProperties.REPLY_TO, "caf%C3%A9/client-7",
                MessageProperties.CORRELATION_ID, "c-1");
        final org.apache.qpid.proton.message.Message fromMqtt = decode(stored("svc", mqtt, new byte[0]), 0);
        assertThat(fromMqtt.getReplyTo()).isEqualTo("café/client-7");
        assertThat(fromMqtt.getCorrelationId()).isEqualTo("c-1");
        assertThat(fromMqtt.getApplicationProperties()).isNull();
        final Map<String, String> rocketMq = Map.of(MessageProperties.REPLY_TO, "JunctionCluster_REPLY_TOPIC",
                MessageProperties.CORRELATION_ID, "7c9e6679", "REPLY_TO_CLIENT", "10.0.0.5@1", "TTL", "3000");
        final org.apache.qpid.proton.message.Message fromRocketMq = decode(stored("svc", rocketMq, new byte[0]), 0);
        assertThat(fromRocketMq.getReplyTo()).isEqualTo("JunctionCluster_REPLY_TOPIC");
        assertThat(fromRocketMq.getCorrelationId()).isEqualTo("7c9e6679");
        assertThat(fromRocketMq.getApplicationProperties().getValue()).isEqualTo(Map.of("TTL", "3000"));
    }

    @Test
    void shouldGiveAnAmqpTextMessageToOtherProtocolsAsUtf8Bytes() throws Exception {
        final org.apache.qpid.proton.message.Message sent = Proton.message();
        sent.setBody(new AmqpValue("21.5 °C"));
        final Message core = toCore(sent).toMessage("sensors", Message.ANY_QUEUE, 1);
        assertThat(new String(core.body(), StandardCharsets.UTF_8)).isEqualTo("21.5 °C");
    }

    @Test
    void shouldRejectMalformedMessages() {
        final byte[] garbage = {0x00, 0x53, 0x77, (byte) 0xA1, 0x10, 'x'};
        assertThatThrownBy(() -> mapping.toCore(garbage, garbage.length, 0))
                .isInstanceOf(MalformedMessageException.class);
        final byte[] notASection = {(byte) 0xA1, 0x01, 'x'};
        assertThatThrownBy(() -> mapping.toCore(notASection, notASection.length, 0))
                .isInstanceOf(MalformedMessageException.class);
    }

    private AmqpMessageMapping.Inbound toCore(final org.apache.qpid.proton.message.Message m) throws Exception {
        final byte[] buf = new byte[65536];
        final int n = m.encode(buf, 0, buf.length);
        return mapping.toCore(buf, n, System.currentTimeMillis());
    }

    private org.apache.qpid.proton.message.Message roundTrip(final org.apache.qpid.proton.message.Message sent)
            throws Exception {
        final Message core = toCore(sent).toMessage("t", 0, System.currentTimeMillis());
        return decode(stored("t", core.properties(), core.body()), 0);
    }

    private org.apache.qpid.proton.message.Message decode(final StoredMessage stored, final int deliveryCount) {
        final GrowableBuffer out = new GrowableBuffer(64);
        mapping.toAmqp(stored, stored.topic(), deliveryCount, out);
        final org.apache.qpid.proton.message.Message m = Proton.message();
        m.decode(out.array(), 0, out.position());
        return m;
    }

    private static StoredMessage stored(final String topic, final Map<String, String> props, final byte[] body) {
        final InetSocketAddress host = new InetSocketAddress("127.0.0.1", 1);
        return new StoredMessage(topic, 0, 0, 0, body.length, 0, 0, 1000L, host, 2000L, host, 0, 0, props,
                ByteBuffer.wrap(body), ByteBuffer.wrap(body));
    }

    @Test
    void shouldShowConsumersOrdinaryPropertiesOnlyAsTheCoreRuleSays() {
        final Map<String, String> props = new LinkedHashMap<>();
        for (String name : ReservedPropertyTable.RESERVED) {
            props.put(name, "forged");
        }
        for (String name : ReservedPropertyTable.ORDINARY) {
            props.put(name, "v-" + name);
        }
        final org.apache.qpid.proton.message.Message m = decode(stored("t", props, new byte[0]), 0);
        // Tags and keys are shown on purpose: JMS selectors filter on them.
        final List<String> shown = new ArrayList<>(ReservedPropertyTable.ORDINARY);
        shown.add(MessageProperties.TAGS);
        shown.add(MessageProperties.KEYS);
        assertThat(m.getApplicationProperties().getValue().keySet()).containsExactlyInAnyOrderElementsOf(shown);
    }
}
