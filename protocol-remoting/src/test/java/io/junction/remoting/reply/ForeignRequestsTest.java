package io.junction.remoting.reply;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PullRequest;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ForeignRequestsTest {
    @TempDir
    Path dir;

    private final ForeignRequests foreign = new ForeignRequests("JunctionCluster");

    private static StoredMessage storedWith(final MessageStore store, final String topic,
                                            final Map<String, String> props) {
        final Message.Builder b = Message.builder(topic).queueId(0).body(new byte[] {1});
        props.forEach(b::property);
        store.send(b.build()).join();
        TestStores.awaitIndexed(store);
        final List<StoredMessage> read = store.pull(new PullRequest("g", topic, 0,
                store.maxOffset(topic, 0) - 1, 1, null, 0)).join().messages();
        assertThat(read).hasSize(1);
        return read.get(0);
    }

    @Test
    void shouldGiveAnotherProtocolsRequestWhatCreateReplyMessageNeeds() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            final StoredMessage mqtt = storedWith(store, "svc", Map.of("mqtt.topic", "svc/a", "REPLY_TO",
                    "replies/c7", "CORRELATION_ID", "c-1"));
            assertThat(foreign.rocketMqView(mqtt)).containsEntry("REPLY_TO_CLIENT", "reply-to:replies/c7")
                    .containsEntry("CLUSTER", "JunctionCluster").containsEntry("CORRELATION_ID", "c-1")
                    .containsEntry("mqtt.topic", "svc/a");

            // a topic too long for a V1 record: the V2 layout is read the same
            final String longTopic = "t".repeat(200);
            assertThat(foreign.rocketMqView(storedWith(store, longTopic, Map.of("REPLY_TO", "back"))))
                    .containsEntry("REPLY_TO_CLIENT", "reply-to:back");
        }
    }

    @Test
    void shouldHandOutOtherRecordsAsTheyAre() {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            assertThat(foreign.rocketMqView(storedWith(store, "svc", Map.of("REPLY_TO", "JunctionCluster_REPLY_TOPIC",
                    "REPLY_TO_CLIENT", "10.0.0.5@1", "CORRELATION_ID", "c")))).as("a RocketMQ request").isNull();
            assertThat(foreign.rocketMqView(storedWith(store, "svc", Map.of("TAGS", "a")))).isNull();
            assertThat(foreign.rocketMqView(storedWith(store, "svc", Map.of("MY_REPLY_TO", "x",
                    "note", "REPLY_TO\u0003")))).as("only a whole property name counts").isNull();
            assertThat(foreign.rocketMqView(storedWith(store, "svc", Map.of())))
                    .as("no properties but the store's id").isNull();
        }
    }
}
