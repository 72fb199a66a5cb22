package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import apache.rocketmq.v2.Encoding;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SystemProperties;
import com.google.protobuf.ByteString;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.ReservedPropertyTable;
import io.junction.core.message.StoredMessage;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MessageMappingTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 40000);

    private static apache.rocketmq.v2.Message.Builder proto(final String topic) {
        return apache.rocketmq.v2.Message.newBuilder().setTopic(Resource.newBuilder().setName(topic))
                .setBody(ByteString.copyFromUtf8("body"));
    }

    private static StoredMessage stored(final Message m) {
        final byte[] body = m.body();
        return new StoredMessage(m.topic(), 3, 42, 1000, 100, 0, m.sysFlag(), m.bornTimestamp(), m.bornHost(),
                m.bornTimestamp() + 5, new InetSocketAddress("10.0.0.1", 8081), 0, 0, m.properties(),
                ByteBuffer.wrap(body), ByteBuffer.wrap(body));
    }

    @Test
    void shouldMapEveryFieldOfANormalMessageBothWays() {
        final apache.rocketmq.v2.Message in = proto("t").putUserProperties("color", "red")
                .setSystemProperties(SystemProperties.newBuilder().setTag("TagA").addKeys("k1").addKeys("k2")
                        .setMessageId("01ABC").setMessageType(MessageType.NORMAL).setBornHost("host-1")
                        .setBornTimestamp(MessageMapping.timestamp(1_700_000_000_123L)).setTraceContext("tc"))
                .build();
        final Message core = MessageMapping.toCore(in, PEER);
        assertThat(core.topic()).isEqualTo("t");
        assertThat(core.tag()).isEqualTo("TagA");
        assertThat(core.keys()).isEqualTo("k1 k2");
        assertThat(core.uniqueId()).isEqualTo("01ABC");
        assertThat(core.property("color")).isEqualTo("red");
        assertThat(core.bornTimestamp()).isEqualTo(1_700_000_000_123L);

        final apache.rocketmq.v2.Message out = MessageMapping.toProto(stored(core), "t", "handle-1", 2, 30_000);
        final SystemProperties sp = out.getSystemProperties();
        assertThat(out.getTopic().getName()).isEqualTo("t");
        assertThat(out.getBody().toStringUtf8()).isEqualTo("body");
        assertThat(out.getUserPropertiesMap()).containsExactly(Map.entry("color", "red"));
        assertThat(sp.getTag()).isEqualTo("TagA");
        assertThat(sp.getKeysList()).containsExactly("k1", "k2");
        assertThat(sp.getMessageId()).isEqualTo("01ABC");
        assertThat(sp.getMessageType()).isEqualTo(MessageType.NORMAL);
        assertThat(sp.getBornHost()).isEqualTo("host-1");
        assertThat(sp.getTraceContext()).isEqualTo("tc");
        assertThat(sp.getReceiptHandle()).isEqualTo("handle-1");
        assertThat(sp.getDeliveryAttempt()).isEqualTo(2);
        assertThat(MessageMapping.millis(sp.getInvisibleDuration())).isEqualTo(30_000);
        assertThat(sp.getQueueId()).isEqualTo(3);
        assertThat(sp.getQueueOffset()).isEqualTo(42);
        assertThat(sp.getBodyEncoding()).isEqualTo(Encoding.IDENTITY);
        // the Java client compares an upper-case hex MD5 of the body
        assertThat(sp.getBodyDigest().getChecksum()).isEqualTo("841A2D689AD86BD1611447453C22C6FC");
    }

    @Test
    void shouldMapFifoDelayAndTransactionProperties() {
        final Message fifo = MessageMapping.toCore(proto("t").setSystemProperties(SystemProperties.newBuilder()
                .setMessageId("1").setMessageType(MessageType.FIFO).setMessageGroup("g")).build(), PEER);
        assertThat(fifo.messageGroup()).isEqualTo("g");
        assertThat(MessageMapping.typeOf(fifo.properties())).isEqualTo(MessageType.FIFO);

        final Message delay = MessageMapping.toCore(proto("t").setSystemProperties(SystemProperties.newBuilder()
                .setMessageId("2").setMessageType(MessageType.DELAY)
                .setDeliveryTimestamp(MessageMapping.timestamp(1234567L))).build(), PEER);
        assertThat(delay.property(MessageProperties.DELIVER_AT)).isEqualTo("1234567");
        assertThat(MessageMapping.typeOf(delay.properties())).isEqualTo(MessageType.DELAY);
        assertThat(MessageMapping.millis(MessageMapping.toProto(stored(delay), "t", null, 1, 0)
                .getSystemProperties().getDeliveryTimestamp())).isEqualTo(1234567L);

        final Message tx = MessageMapping.toCore(proto("t").setSystemProperties(SystemProperties.newBuilder()
                .setMessageId("3").setMessageType(MessageType.TRANSACTION)
                .setOrphanedTransactionRecoveryDuration(MessageMapping.duration(7_000))).build(), PEER);
        assertThat(tx.property(MessageProperties.TRANSACTION_PREPARED)).isEqualTo("true");
        assertThat(tx.property(MessageProperties.PRODUCER_GROUP)).isEqualTo("t");
        assertThat(tx.property("CHECK_IMMUNITY_TIME_IN_SECONDS")).isEqualTo("7");
        assertThat(MessageMapping.typeOf(tx.properties())).isEqualTo(MessageType.TRANSACTION);
        // without its own recovery duration, the store's first-check delay applies
        assertThat(MessageMapping.toCore(proto("t").setSystemProperties(SystemProperties.newBuilder()
                .setMessageId("4").setMessageType(MessageType.TRANSACTION)).build(), PEER)
                .property("CHECK_IMMUNITY_TIME_IN_SECONDS")).isNull();
    }

    @Test
    void shouldKeepGzipBodiesCompressedAndSystemPropertiesOutOfUserProperties() {
        final Message gz = MessageMapping.toCore(proto("t").setSystemProperties(SystemProperties.newBuilder()
                .setMessageId("1").setBodyEncoding(Encoding.GZIP)).build(), PEER);
        assertThat(gz.sysFlag() & MessageMapping.COMPRESSED_FLAG).isNotZero();
        final Map<String, String> props = new LinkedHashMap<>(gz.properties());
        props.put("RETRY_TOPIC", "%RETRY%g");
        props.put("mine", "yes");
        final Message withRetry = Message.builder("t").body("x".getBytes(StandardCharsets.UTF_8)).properties(props)
                .sysFlag(gz.sysFlag()).build();
        final apache.rocketmq.v2.Message out = MessageMapping.toProto(stored(withRetry), "t", null, 1, 0);
        assertThat(out.getSystemProperties().getBodyEncoding()).isEqualTo(Encoding.GZIP);
        assertThat(out.getUserPropertiesMap()).containsOnlyKeys("mine");
    }

    @Test
    void shouldRefuseReservedAndControlCharacterPropertyKeys() {
        assertThat(MessageMapping.illegalPropertyKey("TAGS")).contains("reserved");
        assertThat(MessageMapping.illegalPropertyKey("UNIQ_KEY")).contains("reserved");
        assertThat(MessageMapping.illegalPropertyKey("a\u0001b")).contains("control");
        assertThat(MessageMapping.illegalPropertyKey("")).contains("empty");
        assertThat(MessageMapping.illegalPropertyKey("color")).isNull();
    }

    @Test
    void shouldShowConsumersOrdinaryPropertiesOnlyAsTheCoreRuleSaysAndRefuseReservedOnes() {
        final Map<String, String> props = new LinkedHashMap<>();
        for (String name : ReservedPropertyTable.RESERVED) {
            props.put(name, "forged");
        }
        for (String name : ReservedPropertyTable.ORDINARY) {
            props.put(name, "v-" + name);
        }
        final Message core = Message.builder("t").body(new byte[0]).properties(props).build();
        final apache.rocketmq.v2.Message out = MessageMapping.toProto(stored(core), "t", "handle-1", 1, 30_000);
        // RocketMQ clients also reserve its request-reply markers (MessageConst), which other protocols may use.
        final List<String> shown = ReservedPropertyTable.ORDINARY.stream()
                .filter(n -> !n.equals("TTL") && !n.equals("MSG_TYPE")).toList();
        assertThat(out.getUserPropertiesMap().keySet()).containsExactlyInAnyOrderElementsOf(shown);
        for (String name : ReservedPropertyTable.RESERVED) {
            assertThat(MessageMapping.illegalPropertyKey(name)).as(name).contains("reserved");
        }
        for (String name : shown) {
            assertThat(MessageMapping.illegalPropertyKey(name)).as(name).isNull();
        }
    }
}
