package io.junction.cluster.proxy.groups;

import static io.junction.cluster.proxy.groups.SingleReplicaGroups.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FIFO consumer group reading a logical queue through the proxy while it is scaled from g1 to g2 with a message of
 * a message group still in flight in the old segment: the new segment's messages of that group wait until the old
 * segment's are acked, so the group's messages come in send order across the seam (real stores behind real contract
 * servers, the proxy over real sockets).
 */
class FifoSeamTest {
    private static final String TOPIC = "fifo-seam";
    private static final String CONSUMERS = "fifo-consumers";

    @TempDir
    Path dir;

    private SingleReplicaGroups groups;
    private GroupedMessaging proxy;

    @BeforeEach
    void start() {
        groups = new SingleReplicaGroups(dir, 2);
        proxy = groups.proxyOverFirst(2);
    }

    @AfterEach
    void stop() {
        groups.close();
    }

    private void send(final String messageGroup, final int seq) throws Exception {
        result(proxy.send(Message.builder(TOPIC).property(MessageProperties.MESSAGE_GROUP, messageGroup)
                .body((messageGroup + seq).getBytes(StandardCharsets.UTF_8)).build()));
    }

    private List<PoppedMessage> pop(final long waitMillis) throws Exception {
        return result(proxy.pop(new PopRequest(CONSUMERS, TOPIC, null, 8, 60_000, waitMillis))).messages();
    }

    private static String body(final PoppedMessage m) {
        return new String(m.message().bodyBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldHoldAMessageGroupsNewSegmentUntilItsOldSegmentIsAcked() throws Exception {
        result(proxy.topics().createIfAbsent(TopicConfig.of(TOPIC, 1)));
        result(proxy.groups().createOrUpdate(new GroupConfig(CONSUMERS, GroupConfig.DEFAULT_MAX_RECONSUME_TIMES, true,
                false, Map.of())));
        await().atMost(SingleReplicaGroups.SETTLE).until(() -> proxy.groups().get(CONSUMERS)
                .map(GroupConfig::fifo).orElse(false));
        for (int i = 0; i < 3; i++) {
            send("A", i);
        }
        final List<PoppedMessage> first = pop(0);
        assertThat(first).extracting(FifoSeamTest::body).containsExactly("A0");

        final TopicPlacement scaled = result(proxy.scale(TOPIC, 1, List.of("g2")));
        assertThat(scaled.queue(0)).hasSize(2);
        assertThat(scaled.openSegment(0).group()).isEqualTo("g2");
        send("A", 3);
        send("A", 4);

        // A0 is in flight on g1: A1 waits behind it there, and A3 on g2 waits for the old segment, so a long poll
        // (which would wake as soon as g2 has indexed A3) gets nothing.
        assertThat(pop(3_000)).extracting(FifoSeamTest::body).as("nothing of group A while A0 is unacknowledged")
                .isEmpty();

        final List<String> delivered = new ArrayList<>(List.of(body(first.get(0))));
        result(proxy.ack(CONSUMERS, first.get(0).receiptHandle()));
        final long end = System.nanoTime() + SingleReplicaGroups.SETTLE.toNanos();
        while (delivered.size() < 5 && System.nanoTime() < end) {
            for (PoppedMessage m : pop(2_000)) {
                delivered.add(body(m));
                result(proxy.ack(CONSUMERS, m.receiptHandle()));
            }
        }
        assertThat(delivered).containsExactly("A0", "A1", "A2", "A3", "A4");
    }
}
