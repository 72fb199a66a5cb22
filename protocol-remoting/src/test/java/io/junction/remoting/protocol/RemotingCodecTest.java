package io.junction.remoting.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RemotingCodecTest {

    private static ByteBuf encode(final RemotingCommand cmd) {
        final EmbeddedChannel ch = new EmbeddedChannel(RemotingEncoder.INSTANCE);
        ch.writeOutbound(cmd);
        final ByteBuf out = Unpooled.buffer();
        ByteBuf part;
        while ((part = ch.readOutbound()) != null) {
            out.writeBytes(part);
            part.release();
        }
        ch.finishAndReleaseAll();
        return out;
    }

    private static RemotingCommand decode(final ByteBuf frame, final int maxFrame) {
        final EmbeddedChannel ch = new EmbeddedChannel(new RemotingDecoder(maxFrame));
        try {
            ch.writeInbound(frame);
            return ch.readInbound();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void shouldEncodeTheReferenceBinaryResponseByteForByte() {
        final RemotingCommand cmd = new RemotingCommand().serializeType(SerializeType.ROCKETMQ).code(0).opaque(7)
                .flag(RemotingCommand.FLAG_RESPONSE).put("IS_SUB_CHANGE", "false");
        final ByteBuf out = encode(cmd);
        assertThat(ByteBufUtil.hexDump(out)).isEqualTo("000000310100002d00000001df000000070000000100000000"
                + "00000018000d49535f5355425f4348414e47450000000566616c7365");
        out.release();
    }

    @Test
    void shouldRoundTripBothHeaderTypesWithBodies() {
        for (SerializeType type : SerializeType.values()) {
            final RemotingCommand cmd = RemotingCommand.request(310, 42, false).serializeType(type)
                    .put("b", "Topic\"Test").put("e", 3).remark("r\u00e9mark").body("payload".getBytes());
            final RemotingCommand back = decode(encode(cmd), 1 << 20);
            assertThat(back.serializeType()).isEqualTo(type);
            assertThat(back.code()).isEqualTo(310);
            assertThat(back.opaque()).isEqualTo(42);
            assertThat(back.isResponse()).isFalse();
            assertThat(back.remark()).isEqualTo("r\u00e9mark");
            assertThat(back.extFields()).containsExactlyInAnyOrderEntriesOf(Map.of("b", "Topic\"Test", "e", "3"));
            assertThat(new String(back.body(), StandardCharsets.UTF_8)).isEqualTo("payload");
        }
    }

    @Test
    void shouldWriteAPayloadBufferAfterTheHeaderAndReleaseIt() {
        final ByteBuf payload = Unpooled.copiedBuffer("records", StandardCharsets.UTF_8);
        final RemotingCommand cmd = RemotingCommand.request(11, 1, false).payload(payload);
        final RemotingCommand back = decode(encode(cmd), 1 << 20);
        assertThat(new String(back.body(), StandardCharsets.UTF_8)).isEqualTo("records");
        assertThat(payload.refCnt()).isZero();
    }

    @Test
    void shouldAcceptJsonHeadersFromOtherClientsIgnoringUnknownKeys() {
        final byte[] h = ("{\"code\":105,\"language\":\"GO\",\"version\":317,\"opaque\":9,\"flag\":2,"
                + "\"extFields\":{\"topic\":\"t\",\"n\":5},\"whatever\":[1,2]}").getBytes(StandardCharsets.UTF_8);
        final ByteBuf frame = Unpooled.buffer().writeInt(4 + h.length).writeInt(h.length).writeBytes(h);
        final RemotingCommand cmd = decode(frame, 1 << 20);
        assertThat(cmd.code()).isEqualTo(105);
        assertThat(cmd.language()).isEqualTo("GO");
        assertThat(cmd.isOneway()).isTrue();
        assertThat(cmd.field("topic")).isEqualTo("t");
        assertThat(cmd.intField("n", 0)).isEqualTo(5);
    }

    @Test
    void shouldMarkAMalformedHeaderInsteadOfFailingTheStream() {
        final byte[] h = "{\"code\":\"x".getBytes(StandardCharsets.UTF_8);
        final ByteBuf frame = Unpooled.buffer().writeInt(4 + h.length).writeInt(h.length).writeBytes(h);
        assertThat(decode(frame, 1 << 20).code()).isEqualTo(RemotingDecoder.MALFORMED);

        final ByteBuf binary = Unpooled.buffer().writeInt(4 + 25).writeInt((1 << 24) | 25)
                .writeShort(1).writeByte(0).writeShort(1).writeInt(1).writeInt(0).writeInt(1000)
                .writeBytes(new byte[8]);
        assertThat(decode(binary, 1 << 20).code()).isEqualTo(RemotingDecoder.MALFORMED);
    }

    @Test
    void shouldFailTheStreamOnBadLengths() {
        assertThatThrownBy(() -> decode(Unpooled.buffer().writeInt(2 << 20).writeInt(0), 1 << 20))
                .isInstanceOf(TooLongFrameException.class);
        assertThatThrownBy(() -> decode(Unpooled.buffer().writeInt(-1).writeInt(0), 1 << 20))
                .isInstanceOf(CorruptedFrameException.class);
        assertThatThrownBy(() -> decode(Unpooled.buffer().writeInt(8).writeInt(100).writeInt(0), 1 << 20))
                .isInstanceOf(DecoderException.class);
        assertThatThrownBy(() -> decode(Unpooled.buffer().writeInt(8).writeInt(5 << 24).writeInt(0), 1 << 20))
                .isInstanceOf(DecoderException.class);
    }

    @Test
    void shouldWriteJsonHeadersInFastjsonOrderAndEscapeWhatNeedsIt() {
        final RemotingCommand cmd = RemotingCommand.request(11, 5, false).put("topic", "t").put("a", "x\\y\n\u0001")
                .remark("caf\u00e9 \ud83d\ude00 \"q\"");
        assertThat(new String(HeaderCodec.encode(cmd), StandardCharsets.UTF_8)).isEqualTo("{\"code\":11,"
                + "\"extFields\":{\"a\":\"x\\\\y\\n\\u0001\",\"topic\":\"t\"},\"flag\":0,\"language\":\"JAVA\","
                + "\"opaque\":5,\"remark\":\"caf\u00e9 \ud83d\ude00 \\\"q\\\"\",\"serializeTypeCurrentRPC\":\"JSON\","
                + "\"version\":" + RemotingCommand.SERVER_VERSION + "}");
        final RemotingCommand back = decode(encode(cmd), 1 << 20);
        assertThat(back.field("a")).isEqualTo("x\\y\n\u0001");
        assertThat(back.remark()).isEqualTo("caf\u00e9 \ud83d\ude00 \"q\"");
    }

    @Test
    void shouldWriteAnInsertionOrderedMapSortedWhateverOrderItWasFilledIn() {
        final Map<String, String> unsorted = new LinkedHashMap<>();
        unsorted.put("queueId", "3");
        unsorted.put("MSG_REGION", "DefaultRegion");
        unsorted.put("msgId", "m");
        final Map<String, String> sorted = new LinkedHashMap<>();
        sorted.put("MSG_REGION", "DefaultRegion");
        sorted.put("msgId", "m");
        sorted.put("queueId", "3");
        final String expected = "{\"code\":0,\"extFields\":{\"MSG_REGION\":\"DefaultRegion\",\"msgId\":\"m\","
                + "\"queueId\":\"3\"},\"flag\":1,";
        for (Map<String, String> fields : List.of(unsorted, sorted)) {
            final RemotingCommand cmd = new RemotingCommand().code(0).flag(RemotingCommand.FLAG_RESPONSE)
                    .extFields(fields);
            assertThat(new String(HeaderCodec.encode(cmd), StandardCharsets.UTF_8)).startsWith(expected);
        }
    }

    @Test
    void shouldReadEachJsonHeaderAloneThoughTheyShareOneArray() {
        // Headers are read through one array per thread. A header cut short after a longer one must not be completed
        // by the bytes the longer one left there.
        final String whole = "{\"code\":11,\"opaque\":1,\"extFields\":{\"a\":\"" + "x".repeat(2000) + "\"}}";
        final String cut = whole.substring(0, whole.length() - 10);
        final RemotingCommand first = decode(jsonFrame(whole), 1 << 20);
        final RemotingCommand second = decode(jsonFrame(cut), 1 << 20);
        assertThat(first.code()).isEqualTo(11);
        assertThat(first.field("a")).hasSize(2000);
        assertThat(second.code()).isEqualTo(RemotingDecoder.MALFORMED);
    }

    private static ByteBuf jsonFrame(final String header) {
        final byte[] bytes = header.getBytes(StandardCharsets.UTF_8);
        return Unpooled.buffer().writeInt(4 + bytes.length).writeInt(bytes.length).writeBytes(bytes);
    }

    @Test
    void shouldKeepNestedExtFieldValuesAsJsonTextAndRefuseNonNumericInts() {
        final byte[] h = ("{\"code\":105,\"opaque\":3,\"remark\":null,\"extFields\":{\"o\":{\"k\":[1,true]},"
                + "\"b\":false,\"z\":null}}").getBytes(StandardCharsets.UTF_8);
        final RemotingCommand cmd = decode(Unpooled.buffer().writeInt(4 + h.length).writeInt(h.length).writeBytes(h),
                1 << 20);
        assertThat(cmd.extFields()).containsExactlyInAnyOrderEntriesOf(Map.of("o", "{\"k\":[1,true]}", "b", "false"));
        assertThat(cmd.remark()).isNull();
        assertThat(cmd.opaque()).isEqualTo(3);

        for (String bad : new String[] {"{\"code\":\"105\"}", "{\"opaque\":1}", "{\"code\":1,\"flag\":\"2\"}",
            "{\"code\":1,\"extFields\":[]}", "[1]", "{\"code\":1,\"opaque\":99999999999}"}) {
            final byte[] b = bad.getBytes(StandardCharsets.UTF_8);
            assertThat(decode(Unpooled.buffer().writeInt(4 + b.length).writeInt(b.length).writeBytes(b), 1 << 20)
                    .code()).as(bad).isEqualTo(RemotingDecoder.MALFORMED);
        }
    }

    @Test
    void shouldRoundTripEveryKindOfIntInAJsonHeader() {
        for (int n : new int[] {0, 7, 10, 99, 100, 123456789, Integer.MAX_VALUE, -1, -10, Integer.MIN_VALUE}) {
            final RemotingCommand back = decode(encode(RemotingCommand.request(n, n, false).flag(n)), 1 << 20);
            assertThat(back.code()).isEqualTo(n);
            assertThat(back.opaque()).isEqualTo(n);
            assertThat(back.flag()).isEqualTo(n);
        }
    }
}
