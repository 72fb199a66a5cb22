package io.junction.core.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.message.Message;
import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecordCodecTest {
    private static final InetSocketAddress STORE = new InetSocketAddress("10.0.0.7", 10911);

    private static ByteBuffer sealed(final Message m, final InetSocketAddress storeHost, final long at) {
        final ByteBuffer record = RecordCodec.encode(m, storeHost);
        RecordCodec.seal(record, m.queueId(), 42, at, 1_700_000_000_999L, 0);
        return record;
    }

    private static Message message(final String topic, final InetSocketAddress bornHost) {
        return Message.builder(topic).queueId(3).tag("TagA").property("color", "red").bornHost(bornHost)
                .bornTimestamp(1_700_000_000_123L).body("payload".getBytes(StandardCharsets.UTF_8)).build();
    }

    @Test
    void decodesEveryFieldOfASealedRecord() {
        final InetSocketAddress born = new InetSocketAddress("192.168.1.20", 53124);
        final StoredMessage m = RecordCodec.decode(sealed(message("orders", born), STORE, 4096));
        assertThat(m.topic()).isEqualTo("orders");
        assertThat(m.queueId()).isEqualTo(3);
        assertThat(m.queueOffset()).isEqualTo(42);
        assertThat(m.commitLogOffset()).isEqualTo(4096);
        assertThat(m.bornHost()).isEqualTo(born);
        assertThat(m.storeHost()).isEqualTo(STORE);
        assertThat(m.bornTimestamp()).isEqualTo(1_700_000_000_123L);
        assertThat(m.storeTimestamp()).isEqualTo(1_700_000_000_999L);
        assertThat(m.tag()).isEqualTo("TagA");
        assertThat(m.property("color")).isEqualTo("red");
        assertThat(new String(m.bodyBytes(), StandardCharsets.UTF_8)).isEqualTo("payload");
    }

    @Test
    void decodesIpv6HostsAndRepeatedIpv4HostsToEqualAddresses() {
        final InetSocketAddress v6 = new InetSocketAddress("2001:db8::15", 7000);
        final InetSocketAddress v4 = new InetSocketAddress("172.16.0.3", 41000);
        final StoredMessage a = RecordCodec.decode(sealed(message("t", v6), STORE, 0));
        assertThat(a.bornHost()).isEqualTo(v6);
        final StoredMessage b = RecordCodec.decode(sealed(message("t", v4), STORE, 0));
        final StoredMessage c = RecordCodec.decode(sealed(message("t", v4), STORE, 0));
        assertThat(b.bornHost()).isEqualTo(v4).isSameAs(c.bornHost());
        // Same address, another port: another address, never the remembered one.
        final InetSocketAddress otherPort = new InetSocketAddress("172.16.0.3", 41001);
        assertThat(RecordCodec.decode(sealed(message("t", otherPort), STORE, 0)).bornHost()).isEqualTo(otherPort);
    }

    @Test
    void reusesTheExpectedTopicStringOnlyWhenTheRecordHasThatTopic() {
        final InetSocketAddress born = new InetSocketAddress("127.0.0.1", 1);
        final String expected = new String("orders".toCharArray());
        assertThat(RecordCodec.decode(sealed(message("orders", born), STORE, 0), expected).topic())
                .isSameAs(expected);
        assertThat(RecordCodec.decode(sealed(message("orders", born), STORE, 0), "orderz").topic())
                .isEqualTo("orders");
        assertThat(RecordCodec.decode(sealed(message("commandes-été", born), STORE, 0), "commandes-été").topic())
                .isEqualTo("commandes-été");
    }

    @Test
    void checksStructureWithoutTheCrcWhenAskedAndAlwaysTheOwnOffset() {
        final ByteBuffer record = sealed(message("t", new InetSocketAddress("127.0.0.1", 1)), STORE, 512);
        final int size = record.remaining();
        final int bodyAt = RecordLayout.bodyLengthOffset(0) + 4;
        record.put(bodyAt, (byte) (record.get(bodyAt) ^ 0x10)); // a body bit: the CRC no longer matches
        assertThat(RecordCodec.check(record, 0, 512)).isEqualTo(RecordCodec.INVALID);
        assertThat(RecordCodec.check(record, 0, 512, false)).isEqualTo(size);
        assertThat(RecordCodec.check(record, 0, 1024, false)).isEqualTo(RecordCodec.INVALID);
        record.putInt(RecordLayout.bodyLengthOffset(0), size); // a body longer than the record
        assertThat(RecordCodec.check(record, 0, 512, false)).isEqualTo(RecordCodec.INVALID);
    }
}
