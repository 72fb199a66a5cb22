package io.junction.broker.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.broker.http.JsonReplies;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Body previews: text when the bytes are printable UTF-8, hex otherwise, never more than the cap. */
class BodyPreviewTest {

    private static ObjectNode preview(final byte[] body) {
        final ObjectNode n = JsonReplies.JSON.createObjectNode();
        BodyPreview.describe(ByteBuffer.wrap(body), n);
        return n;
    }

    @Test
    void shouldShowPrintableUtf8AsText() {
        final ObjectNode n = preview("température: 21°C\nok".getBytes(StandardCharsets.UTF_8));

        assertThat(n.get("bodyEncoding").asText()).isEqualTo("text");
        assertThat(n.get("body").asText()).isEqualTo("température: 21°C\nok");
        assertThat(n.get("bodyTruncated").asBoolean()).isFalse();
        assertThat(n.get("bodySize").asInt()).isEqualTo("température: 21°C\nok".getBytes(StandardCharsets.UTF_8)
                .length);
    }

    @Test
    void shouldShowBinaryAsHex() {
        final ObjectNode n = preview(new byte[] {0x00, 0x01, (byte) 0xFF, 0x41});

        assertThat(n.get("bodyEncoding").asText()).isEqualTo("hex");
        assertThat(n.get("body").asText()).isEqualTo("00 01 ff 41");
    }

    @Test
    void shouldCapALargeBodyEvenWhenTheCutSplitsACharacter() {
        final byte[] body = ("x".repeat(BodyPreview.MAX_BYTES - 1) + "é and more").getBytes(StandardCharsets.UTF_8);

        final ObjectNode n = preview(body);

        assertThat(n.get("bodyEncoding").asText()).isEqualTo("text");
        assertThat(n.get("bodyTruncated").asBoolean()).isTrue();
        assertThat(n.get("bodyShownBytes").asInt()).isEqualTo(BodyPreview.MAX_BYTES);
        assertThat(n.get("bodySize").asInt()).isEqualTo(body.length);
        assertThat(n.get("body").asText()).isEqualTo("x".repeat(BodyPreview.MAX_BYTES - 1));
    }
}
