package io.junction.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PublishEncoder} against Netty's own MQTT codec: the same bytes as {@code MqttEncoder} where both can encode
 * a packet, and packets {@code MqttDecoder} reads back field by field, several to a buffer.
 */
class PublishEncoderTest {

    @Test
    void shouldWriteTheBytesNettysEncoderWritesForMqtt311() {
        assertSameBytes(false, "a/b", 0, false, false, 0, new MqttProperties(), bytes("x"));
        assertSameBytes(false, "Zürich/°C/水", 1, true, true, 65535, new MqttProperties(), new byte[200]);
        assertSameBytes(false, "big", 2, false, false, 1, new MqttProperties(), new byte[20_000]); // 3-byte length
    }

    @Test
    void shouldWriteTheBytesNettysEncoderWritesForMqtt5() {
        assertSameBytes(true, "plain", 1, false, false, 7, new MqttProperties(), bytes("v5"));
        final MqttProperties props = everyPublishProperty();
        assertSameBytes(true, "sensors/room1", 2, true, false, 300, props, bytes("21.5"));
    }

    @Test
    void shouldBeReadBackByNettysDecoderSeveralToABuffer() {
        final ByteBuf out = Unpooled.buffer();
        assertThat(PublishEncoder.encode(out, true, "sensors/room1", 1, false, true, 5, everyPublishProperty(), 3,
                bytes("first"))).isTrue();
        assertThat(PublishEncoder.encode(out, true, "", 0, false, false, 0, new MqttProperties(), 3,
                bytes("second"))).isTrue();
        assertThat(PublishEncoder.encode(out, true, "other", 2, true, false, 6, new MqttProperties(), 0,
                new byte[0])).isTrue();

        final List<MqttPublishMessage> read = decode(true, out);
        assertThat(read).hasSize(3);
        final MqttPublishMessage first = read.get(0);
        assertThat(first.variableHeader().topicName()).isEqualTo("sensors/room1");
        assertThat(first.variableHeader().packetId()).isEqualTo(5);
        assertThat(first.fixedHeader().qosLevel()).isEqualTo(MqttQoS.AT_LEAST_ONCE);
        assertThat(first.fixedHeader().isRetain()).isTrue();
        assertThat(first.fixedHeader().isDup()).isFalse();
        final MqttProperties p = first.variableHeader().properties();
        assertThat(p.getProperty(MqttProperties.TOPIC_ALIAS).value()).isEqualTo(3);
        assertThat(p.getProperty(MqttProperties.CONTENT_TYPE).value()).isEqualTo("text/plain");
        assertThat(p.getProperty(MqttProperties.PAYLOAD_FORMAT_INDICATOR).value()).isEqualTo(1);
        assertThat(p.getProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL).value()).isEqualTo(120);
        assertThat(p.getProperty(MqttProperties.RESPONSE_TOPIC).value()).isEqualTo("replies/room1");
        assertThat((byte[]) p.getProperty(MqttProperties.CORRELATION_DATA).value()).containsExactly(1, 2, 3);
        assertThat(p.getProperties(MqttProperties.SUBSCRIPTION_IDENTIFIER))
                .extracting(x -> x.value()).containsExactlyInAnyOrder(1, 200_000);
        assertThat(p.getProperties(MqttProperties.USER_PROPERTY)).extracting(x -> {
            final MqttProperties.StringPair pair = (MqttProperties.StringPair) x.value();
            return pair.key + "=" + pair.value;
        }).containsExactly("unit=celsius", "unit=kelvin", "ü=☃");
        assertThat(text(first)).isEqualTo("first");

        final MqttPublishMessage second = read.get(1);
        assertThat(second.variableHeader().topicName()).isEmpty(); // the alias stands for it
        assertThat(second.variableHeader().properties().getProperty(MqttProperties.TOPIC_ALIAS).value()).isEqualTo(3);
        assertThat(second.fixedHeader().qosLevel()).isEqualTo(MqttQoS.AT_MOST_ONCE);
        assertThat(text(second)).isEqualTo("second");

        final MqttPublishMessage third = read.get(2);
        assertThat(third.variableHeader().topicName()).isEqualTo("other");
        assertThat(third.fixedHeader().isDup()).isTrue();
        assertThat(third.fixedHeader().qosLevel()).isEqualTo(MqttQoS.EXACTLY_ONCE);
        assertThat(third.variableHeader().properties().isEmpty()).isTrue();
        assertThat(third.payload().readableBytes()).isZero();
        read.forEach(MqttPublishMessage::release);
    }

    @Test
    void shouldWriteNothingForAPropertyAPublishDoesNotCarry() {
        final MqttProperties props = new MqttProperties();
        props.add(new MqttProperties.StringProperty(MqttProperties.REASON_STRING, "not in a PUBLISH"));
        final ByteBuf out = Unpooled.buffer();
        out.writeByte(42);
        assertThat(PublishEncoder.encode(out, true, "t", 1, false, false, 1, props, 0, bytes("x"))).isFalse();
        assertThat(out.readableBytes()).isEqualTo(1);
        // MQTT 3.1.1 has no properties: they are left out, as Netty's encoder does
        assertThat(PublishEncoder.encode(out, false, "t", 1, false, false, 1, props, 0, bytes("x"))).isTrue();
    }

    private static MqttProperties everyPublishProperty() {
        final MqttProperties props = new MqttProperties();
        props.add(new MqttProperties.StringProperty(MqttProperties.CONTENT_TYPE, "text/plain"));
        props.add(new MqttProperties.IntegerProperty(MqttProperties.PAYLOAD_FORMAT_INDICATOR, 1));
        props.add(new MqttProperties.IntegerProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL, 120));
        props.add(new MqttProperties.StringProperty(MqttProperties.RESPONSE_TOPIC, "replies/room1"));
        props.add(new MqttProperties.BinaryProperty(MqttProperties.CORRELATION_DATA, new byte[] {1, 2, 3}));
        props.add(new MqttProperties.IntegerProperty(MqttProperties.SUBSCRIPTION_IDENTIFIER, 1));
        props.add(new MqttProperties.IntegerProperty(MqttProperties.SUBSCRIPTION_IDENTIFIER, 200_000));
        props.add(new MqttProperties.UserProperty("unit", "celsius"));
        props.add(new MqttProperties.UserProperty("unit", "kelvin"));
        props.add(new MqttProperties.UserProperty("ü", "☃"));
        return props;
    }

    private static void assertSameBytes(final boolean v5, final String topic, final int qos, final boolean dup,
                                        final boolean retain, final int packetId, final MqttProperties props,
                                        final byte[] payload) {
        final ByteBuf ours = Unpooled.buffer();
        assertThat(PublishEncoder.encode(ours, v5, topic, qos, dup, retain, packetId, props, 0, payload)).isTrue();

        final EmbeddedChannel netty = new EmbeddedChannel(MqttEncoder.INSTANCE);
        netty.writeOutbound(connect(v5)); // the encoder learns the protocol version from CONNECT
        ((ByteBuf) netty.readOutbound()).release();
        netty.writeOutbound(new MqttPublishMessage(new MqttFixedHeader(MqttMessageType.PUBLISH, dup,
                MqttQoS.valueOf(qos), retain, 0), new MqttPublishVariableHeader(topic, qos > 0 ? packetId : -1,
                props), Unpooled.wrappedBuffer(payload)));
        final ByteBuf theirs = netty.readOutbound();
        try {
            assertThat(ByteBufUtil.hexDump(ours)).isEqualTo(ByteBufUtil.hexDump(theirs));
        } finally {
            theirs.release();
            netty.finishAndReleaseAll();
        }
    }

    private static List<MqttPublishMessage> decode(final boolean v5, final ByteBuf bytes) {
        final EmbeddedChannel encoder = new EmbeddedChannel(MqttEncoder.INSTANCE);
        encoder.writeOutbound(connect(v5));
        final ByteBuf connect = encoder.readOutbound();
        encoder.finishAndReleaseAll();
        final EmbeddedChannel decoder = new EmbeddedChannel(new MqttDecoder());
        decoder.writeInbound(connect); // the decoder learns the protocol version from CONNECT
        decoder.<Object>readInbound();
        decoder.writeInbound(bytes);
        final List<MqttPublishMessage> out = new ArrayList<>();
        for (Object m; (m = decoder.readInbound()) != null; ) {
            final MqttPublishMessage p = (MqttPublishMessage) m;
            assertThat(p.decoderResult().isSuccess()).as(String.valueOf(p.decoderResult())).isTrue();
            out.add(p);
        }
        decoder.finishAndReleaseAll();
        return out;
    }

    private static Object connect(final boolean v5) {
        return MqttMessageBuilders.connect().clientId("test")
                .protocolVersion(v5 ? MqttVersion.MQTT_5 : MqttVersion.MQTT_3_1_1).build();
    }

    private static String text(final MqttPublishMessage p) {
        return p.payload().toString(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
