package io.junction.remoting.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.core.message.Message;
import io.junction.remoting.protocol.HeaderException;
import io.junction.remoting.protocol.RemotingCommand;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class SendProcessorTest {

    private static byte[] batchRecord(final int flag, final String body, final String props) {
        final byte[] b = body.getBytes(StandardCharsets.UTF_8);
        final byte[] p = props.getBytes(StandardCharsets.UTF_8);
        final int total = 20 + b.length + 2 + p.length;
        return ByteBuffer.allocate(total).putInt(total).putInt(0).putInt(0).putInt(flag).putInt(b.length).put(b)
                .putShort((short) p.length).put(p).array();
    }

    private static SendProcessor.SendHeader header() {
        final RemotingCommand r = RemotingCommand.request(320, 1, false).put("a", "pg").put("b", "orders")
                .put("e", 2).put("g", 1000L);
        return SendProcessor.SendHeader.read(r, true);
    }

    @Test
    void shouldDecodeABatchBody() {
        final byte[] one = batchRecord(5, "first", "UNIQ_KEY\u0001A\u0002TAGS\u0001x\u0002");
        final byte[] two = batchRecord(0, "second", "");
        final byte[] body = ByteBuffer.allocate(one.length + two.length).put(one).put(two).array();

        final List<Message> messages = SendProcessor.decodeBatch(body, header(), null);

        assertThat(messages).hasSize(2);
        assertThat(messages.get(0).topic()).isEqualTo("orders");
        assertThat(messages.get(0).queueId()).isEqualTo(2);
        assertThat(messages.get(0).flag()).isEqualTo(5);
        assertThat(messages.get(0).uniqueId()).isEqualTo("A");
        assertThat(messages.get(0).tag()).isEqualTo("x");
        assertThat(new String(messages.get(1).body(), StandardCharsets.UTF_8)).isEqualTo("second");
        assertThat(messages.get(1).bornTimestamp()).isEqualTo(1000L);
    }

    @Test
    void shouldRefuseATruncatedOrLyingBatch() {
        final byte[] one = batchRecord(0, "first", "");
        final byte[] cut = java.util.Arrays.copyOf(one, one.length - 3);
        assertThatThrownBy(() -> SendProcessor.decodeBatch(cut, header(), null)).isInstanceOf(HeaderException.class);
        final byte[] lying = one.clone();
        ByteBuffer.wrap(lying).putInt(16, 1_000_000);
        assertThatThrownBy(() -> SendProcessor.decodeBatch(lying, header(), null))
                .isInstanceOf(HeaderException.class);
    }

    @Test
    void shouldParseTopicAttributes() {
        assertThat(AdminProcessor.parseAttributes("+message.type=FIFO,+a=b, -c"))
                .containsEntry("message.type", "FIFO").containsEntry("a", "b").hasSize(2);
        assertThatThrownBy(() -> AdminProcessor.parseAttributes("message.type=FIFO"))
                .isInstanceOf(HeaderException.class);
    }
}
