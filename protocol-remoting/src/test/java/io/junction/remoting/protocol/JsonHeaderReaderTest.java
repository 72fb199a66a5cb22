package io.junction.remoting.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The hand-written header reader against Jackson as the reference, on chosen headers and on random mutations. */
class JsonHeaderReaderTest {
    private static final ObjectMapper JACKSON = new ObjectMapper();

    private static final List<String> HEADERS = List.of(
            RemotingHeaderSamples.SEND_REQUEST,
            "{\"code\":105,\"language\":\"GO\",\"version\":317,\"opaque\":9,\"flag\":2,"
                    + "\"extFields\":{\"topic\":\"t\",\"n\":5},\"whatever\":[1,2,{\"x\":null}]}",
            " {\n \"opaque\" : -3 ,\t\"code\" : 11 , \"remark\" : \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\/ \\b\\f\\n\\r\\t\","
                    + " \"extFields\" : { \"o\":{\"k\":[1,true]}, \"b\":false, \"z\":null, \"d\":1.5, \"u\":\"\u00fcml\u00e4ut\" } } ",
            "{\"code\":0,\"extFields\":{},\"flag\":1,\"language\":null,\"remark\":null,\"serializeTypeCurrentRPC\":\"JSON\"}",
            "{\"code\":1.0,\"extFields\":null,\"deep\":{\"a\":{\"b\":{\"c\":[[[]]]}}},\"e\":1e3,\"f\":-0.5E-2}",
            "{\"code\":2147483647,\"opaque\":-2147483648,\"extFields\":{\"k\":\"v\",\"k\":\"w\"}}");

    /** What the reader should produce, computed from Jackson's tree (as the previous reader did). */
    private static RemotingCommand reference(final String json) throws Exception {
        final JsonNode node = JACKSON.readTree(json);
        if (node == null || !node.isObject() || node.get("code") == null || !node.get("code").canConvertToInt()
                || !node.get("code").isNumber()) {
            return null;
        }
        final RemotingCommand cmd = new RemotingCommand().code(node.get("code").asInt());
        for (String f : new String[] {"version", "opaque", "flag"}) {
            final JsonNode v = node.get(f);
            if (v != null && !v.isNull() && !(v.isNumber() && v.canConvertToInt())) {
                return null;
            }
        }
        cmd.version(node.path("version").asInt(0)).opaque(node.path("opaque").asInt(0))
                .flag(node.path("flag").asInt(0));
        cmd.language(node.hasNonNull("language") ? node.get("language").asText() : "JAVA");
        cmd.remark(node.hasNonNull("remark") ? node.get("remark").asText() : null);
        final JsonNode ext = node.get("extFields");
        if (ext != null && !ext.isNull()) {
            if (!ext.isObject()) {
                return null;
            }
            final Map<String, String> map = new HashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = ext.fields(); it.hasNext(); ) {
                final Map.Entry<String, JsonNode> e = it.next();
                if (!e.getValue().isNull()) {
                    map.put(e.getKey(), e.getValue().isTextual() ? e.getValue().asText() : e.getValue().toString());
                }
            }
            cmd.extFields(map);
        }
        return cmd;
    }

    private static RemotingCommand read(final String json) {
        final RemotingCommand cmd = new RemotingCommand();
        JsonHeaderReader.read(cmd, json.getBytes(StandardCharsets.UTF_8));
        return cmd;
    }

    private static void assertSame(final RemotingCommand actual, final RemotingCommand expected, final String json) {
        assertThat(actual.code()).as(json).isEqualTo(expected.code());
        assertThat(actual.opaque()).as(json).isEqualTo(expected.opaque());
        assertThat(actual.flag()).as(json).isEqualTo(expected.flag());
        assertThat(actual.version()).as(json).isEqualTo(expected.version());
        assertThat(actual.language()).as(json).isEqualTo(expected.language());
        assertThat(actual.remark()).as(json).isEqualTo(expected.remark());
        if (expected.extFields() == null) {
            assertThat(actual.extFields()).as(json).isNull();
            return;
        }
        // Numbers are kept as written ("1E5"), Jackson normalizes them ("100000.0"): compare those by value.
        assertThat(actual.extFields()).as(json).hasSameSizeAs(expected.extFields());
        expected.extFields().forEach((k, v) -> {
            final String got = actual.extFields().get(k);
            assertThat(got).as(json + " / " + k).isNotNull();
            if (!got.equals(v)) {
                assertThat(new java.math.BigDecimal(got)).as(json + " / " + k).isEqualByComparingTo(v);
            }
        });
    }

    @Test
    void shouldReadChosenHeadersAsJacksonDoes() throws Exception {
        for (String json : HEADERS) {
            final RemotingCommand expected = reference(json);
            assertThat(expected).as(json).isNotNull();
            assertSame(read(json), expected, json);
        }
        assertThat(read(HEADERS.get(0)).field("i")).isEqualTo("UNIQ_KEY\u00017F0000010A2B18B4AAC27A2F1B4C0000\u0002"
                + "WAIT\u0001true\u0002");
        assertThat(read(HEADERS.get(2)).extFields()).containsEntry("o", "{\"k\":[1,true]}").containsEntry("d", "1.5")
                .containsEntry("b", "false").doesNotContainKey("z");
    }

    @Test
    void shouldRefuseBrokenHeadersWithAHeaderException() {
        for (String bad : new String[] {"", "   ", "[1]", "{", "{\"code\":", "{\"code\":1", "{\"code\":1,}",
            "{\"code\":\"1\"}", "{\"opaque\":1}", "{\"code\":1,\"extFields\":[]}", "{\"code\":1,\"remark\":\"\\x\"}",
            "{\"code\":1,\"remark\":\"\\u12\"}", "{\"code\":1,\"remark\":\"a\u0001b\"}", "{\"code\":1 \"flag\":2}",
            "{\"code\":01x}", "{\"code\":-}", "{\"code\":1.}", "{\"code\":1,\"x\":tru}", "{\"code\":1,\"x\":[1 2]}",
            "{\"code\":99999999999}", "{\"code\":1,\"x\":" + "[".repeat(100) + "]".repeat(100) + "}",
            "{\"code\":1,\"remark\":\"unterminated}"}) {
            assertThatThrownBy(() -> read(bad)).as(bad).isInstanceOf(HeaderException.class);
        }
    }

    @Test
    void shouldAgreeWithJacksonOrRefuseOnRandomMutations() throws Exception {
        final SplittableRandom random = new SplittableRandom(20261202);
        final byte[] alphabet = "{}[]\",:\\ 0123456789-.eEtrufalsnu\u0001".getBytes(StandardCharsets.ISO_8859_1);
        int agreed = 0;
        for (int n = 0; n < 20_000; n++) {
            final byte[] base = HEADERS.get(random.nextInt(HEADERS.size())).getBytes(StandardCharsets.UTF_8);
            final StringBuilder sb = new StringBuilder(new String(base, StandardCharsets.ISO_8859_1));
            for (int m = 1 + random.nextInt(3); m > 0 && sb.length() > 0; m--) {
                final int at = random.nextInt(sb.length());
                final char c = (char) (alphabet[random.nextInt(alphabet.length)] & 0xFF);
                switch (random.nextInt(4)) {
                    case 0 -> sb.setCharAt(at, c);
                    case 1 -> sb.insert(at, c);
                    case 2 -> sb.deleteCharAt(at);
                    default -> sb.setLength(at);
                }
            }
            final byte[] bytes = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
            final String json = new String(bytes, StandardCharsets.UTF_8);
            RemotingCommand expected;
            try {
                expected = reference(json);
            } catch (Exception e) {
                expected = null;
            }
            final RemotingCommand actual = new RemotingCommand();
            try {
                JsonHeaderReader.read(actual, bytes);
            } catch (HeaderException e) {
                assertThat(expected).as("refused what Jackson reads: %s (%s)", json, e.getMessage()).isNull();
                continue;
            }
            if (expected != null) {
                assertSame(actual, expected, json);
                agreed++;
            }
        }
        assertThat(agreed).as("mutations both readers accepted").isGreaterThan(1000);
    }
}
