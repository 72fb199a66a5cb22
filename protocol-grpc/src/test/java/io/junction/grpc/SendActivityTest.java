package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.SendMessageResponse;
import apache.rocketmq.v2.SystemProperties;
import com.google.protobuf.ByteString;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SendActivityTest {
    private static final List<String> TOPICS = List.of("normal", "fifo", "mixed");
    @TempDir
    Path dir;
    private MessageStore store;
    private SendActivity sender;

    @BeforeEach
    void setUp() {
        store = MessageStore.open(TestStores.small(dir).build());
        store.topics().createOrUpdate(new TopicConfig("normal", 4, TopicType.NORMAL, TopicConfig.PERM_READ_WRITE,
                null)).join();
        store.topics().createOrUpdate(new TopicConfig("fifo", 4, TopicType.FIFO, TopicConfig.PERM_READ_WRITE, null))
                .join();
        store.topics().createOrUpdate(new TopicConfig("mixed", 4, TopicType.MIXED, TopicConfig.PERM_READ_WRITE,
                null)).join();
        sender = new SendActivity(store, GrpcSettings.defaults());
    }

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    /** Every message stored in the test's topics, as the store reads them back. */
    private List<StoredMessage> stored() {
        TestStores.awaitIndexed(store);
        final List<StoredMessage> all = new ArrayList<>();
        for (String topic : TOPICS) {
            for (int q = 0; q < 4; q++) {
                all.addAll(TestStores.readAll(store, topic, q));
            }
        }
        return all;
    }

    private static apache.rocketmq.v2.Message.Builder message(final String topic, final MessageType type) {
        return apache.rocketmq.v2.Message.newBuilder().setTopic(Resource.newBuilder().setName(topic))
                .setBody(ByteString.copyFromUtf8("b"))
                .setSystemProperties(SystemProperties.newBuilder().setMessageId("ID-1").setMessageType(type));
    }

    private SendMessageResponse send(final SendActivity activity, final apache.rocketmq.v2.Message m) {
        return activity.send(SendMessageRequest.newBuilder().addMessages(m).build(),
                new InetSocketAddress("127.0.0.1", 1)).join();
    }

    private Code code(final apache.rocketmq.v2.Message m) {
        return send(sender, m).getStatus().getCode();
    }

    @Test
    void shouldStoreAMessageOfTheTopicsType() {
        final SendMessageResponse r = send(sender, message("normal", MessageType.NORMAL).build());
        assertThat(r.getStatus().getCode()).isEqualTo(Code.OK);
        assertThat(r.getEntries(0).getMessageId()).isEqualTo("ID-1");
        assertThat(stored()).singleElement().satisfies(m -> {
            assertThat(m.topic()).isEqualTo("normal");
            assertThat(m.uniqueId()).isEqualTo("ID-1");
            assertThat(TestStores.body(m)).isEqualTo("b");
        });
    }

    @Test
    void shouldRefuseAMessageTypeTheTopicDoesNotTakeUnlessRelaxed() {
        final apache.rocketmq.v2.Message fifoToNormal = message("normal", MessageType.FIFO).setSystemProperties(
                SystemProperties.newBuilder().setMessageId("ID").setMessageType(MessageType.FIFO)
                        .setMessageGroup("g")).build();
        final SendMessageResponse refused = send(sender, fifoToNormal);
        assertThat(refused.getStatus().getCode()).isEqualTo(Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE);
        assertThat(refused.getStatus().getMessage()).contains("normal", "NORMAL", "FIFO");
        assertThat(code(message("fifo", MessageType.NORMAL).build()))
                .isEqualTo(Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE);
        assertThat(code(fifoToNormal.toBuilder().setTopic(Resource.newBuilder().setName("mixed")).build()))
                .isEqualTo(Code.OK);

        final GrpcSettings d = GrpcSettings.defaults();
        final SendActivity relaxed = new SendActivity(store, new GrpcSettings(d.maxBodySize(), false,
                d.autoCreateTopics(), d.autoCreateQueues(), d.receiveBatchSize(), d.longPollingMillis(),
                d.pushInvisibleMillis(), d.maxDelayMillis(), d.minInvisibleMillis(), d.maxInvisibleMillis()));
        assertThat(send(relaxed, fifoToNormal).getStatus().getCode()).isEqualTo(Code.OK);
        assertThat(stored()).extracting(StoredMessage::topic).containsExactlyInAnyOrder("mixed", "normal");
    }

    @Test
    void shouldRefuseMalformedMessagesWithTheProtoCodes() {
        assertThat(code(message("", MessageType.NORMAL).build())).isEqualTo(Code.ILLEGAL_TOPIC);
        assertThat(code(message("normal", MessageType.NORMAL).setSystemProperties(SystemProperties.newBuilder())
                .build())).isEqualTo(Code.ILLEGAL_MESSAGE_ID);
        assertThat(code(message("normal", MessageType.NORMAL)
                .setBody(ByteString.copyFrom(new byte[4 * 1024 * 1024 + 1])).build()))
                .isEqualTo(Code.MESSAGE_BODY_TOO_LARGE);
        final apache.rocketmq.v2.Message.Builder many = message("normal", MessageType.NORMAL);
        for (int i = 0; i < 129; i++) {
            many.putUserProperties("p" + i, "v");
        }
        assertThat(code(many.build())).isEqualTo(Code.MESSAGE_PROPERTIES_TOO_LARGE);
        assertThat(code(message("normal", MessageType.NORMAL).putAllUserProperties(Map.of("TAGS", "x")).build()))
                .isEqualTo(Code.ILLEGAL_MESSAGE_PROPERTY_KEY);
        assertThat(code(message("fifo", MessageType.FIFO).build()))
                .isEqualTo(Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE);
        assertThat(code(message("mixed", MessageType.DELAY).setSystemProperties(SystemProperties.newBuilder()
                .setMessageId("ID").setMessageType(MessageType.DELAY)
                .setDeliveryTimestamp(MessageMapping.timestamp(System.currentTimeMillis() + 2 * 86_400_000L)))
                .build())).isEqualTo(Code.ILLEGAL_DELIVERY_TIME);
        assertThat(code(message("normal", MessageType.NORMAL).setSystemProperties(SystemProperties.newBuilder()
                .setMessageId("ID").setTag("a|b")).build())).isEqualTo(Code.ILLEGAL_MESSAGE_TAG);
        assertThat(stored()).isEmpty();
    }

    @Test
    void shouldAnswerMultipleResultsWhenEntriesDiffer() {
        final SendMessageResponse r = sender.send(SendMessageRequest.newBuilder()
                .addMessages(message("normal", MessageType.NORMAL))
                .addMessages(message("", MessageType.NORMAL)).build(), null).join();
        assertThat(r.getStatus().getCode()).isEqualTo(Code.MULTIPLE_RESULTS);
        assertThat(r.getEntriesList()).extracting(e -> e.getStatus().getCode())
                .containsExactly(Code.OK, Code.ILLEGAL_TOPIC);
        assertThat(stored()).hasSize(1);
    }
}
