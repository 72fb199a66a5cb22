package io.junction.cluster.proxy.groups;

import static io.junction.cluster.proxy.groups.SingleReplicaGroups.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.filter.Filters;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.Message;
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
 * A consumer group with in-place redelivery (a JMS queue's, {@link GroupConfig#IN_PLACE_ATTRIBUTE}) reading a logical
 * queue through the proxy while it is scaled from g1 to g2 with messages still unacknowledged in the old segment: the
 * new segment waits until the old one is done, so a message given back on g1 comes again before anything of g2, and
 * the queue is consumed in send order across the seam (real stores behind real contract servers, the proxy over real
 * sockets).
 */
class InPlaceSeamTest {
    private static final String TOPIC = "in-place-seam";
    private static final String CONSUMERS = "queue-consumers";

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

    private void send(final String body) throws Exception {
        result(proxy.send(Message.builder(TOPIC).body(body.getBytes(StandardCharsets.UTF_8)).build()));
    }

    private List<PoppedMessage> pop(final int max, final long waitMillis) throws Exception {
        return result(proxy.pop(new PopRequest(CONSUMERS, TOPIC, null, max, 60_000, waitMillis))).messages();
    }

    private static String body(final PoppedMessage m) {
        return new String(m.message().bodyBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldHoldTheNewSegmentUntilTheOldSegmentsMessagesAreDone() throws Exception {
        result(proxy.topics().createIfAbsent(TopicConfig.of(TOPIC, 1)));
        result(proxy.groups().createOrUpdate(new GroupConfig(CONSUMERS, GroupConfig.DEFAULT_MAX_RECONSUME_TIMES, false,
                false, Map.of(GroupConfig.IN_PLACE_ATTRIBUTE, "true"))));
        await().atMost(SingleReplicaGroups.SETTLE).until(() -> proxy.groups().get(CONSUMERS)
                .map(GroupConfig::inPlace).orElse(false));
        for (int i = 0; i < 3; i++) {
            send("m" + i);
        }
        final List<PoppedMessage> first = pop(8, 0);
        assertThat(first).extracting(InPlaceSeamTest::body).containsExactly("m0", "m1", "m2");

        final TopicPlacement scaled = result(proxy.scale(TOPIC, 1, List.of("g2")));
        assertThat(scaled.openSegment(0).group()).isEqualTo("g2");
        send("m3");
        send("m4");

        // m0..m2 are in flight on g1: m3 on g2 waits for the old segment, so a long poll (which would wake as soon as
        // g2 has indexed m3) gets nothing.
        assertThat(pop(8, 3_000)).extracting(InPlaceSeamTest::body)
                .as("nothing of g2 while the old segment has unacknowledged messages").isEmpty();

        // m0 is given back (a JMS rollback): it comes again in its place, before anything of g2.
        result(proxy.changeInvisibleTime(CONSUMERS, first.get(0).receiptHandle(), 0));
        result(proxy.ack(CONSUMERS, first.get(1).receiptHandle()));
        result(proxy.ack(CONSUMERS, first.get(2).receiptHandle()));
        final List<String> delivered = new ArrayList<>();
        final long end = System.nanoTime() + SingleReplicaGroups.SETTLE.toNanos();
        while (delivered.size() < 3 && System.nanoTime() < end) {
            // One at a time, so a pop starting its pass at g2 would take m3 first if g2 were not held.
            for (PoppedMessage m : pop(1, 1_000)) {
                delivered.add(body(m));
                result(proxy.ack(CONSUMERS, m.receiptHandle()));
            }
        }
        assertThat(delivered).containsExactly("m0", "m3", "m4");
    }

    /**
     * A message no consumer's selector takes stays in the old segment; a selector's POP is not held behind it (it would
     * wait until retention removed that message), so the selector's messages of the new segment come at once.
     */
    @Test
    void shouldNotHoldASelectorsPopBehindTheOldSegmentsUnselectedMessage() throws Exception {
        result(proxy.topics().createIfAbsent(TopicConfig.of(TOPIC, 1)));
        result(proxy.groups().createOrUpdate(new GroupConfig(CONSUMERS, GroupConfig.DEFAULT_MAX_RECONSUME_TIMES, false,
                false, Map.of(GroupConfig.IN_PLACE_ATTRIBUTE, "true"))));
        await().atMost(SingleReplicaGroups.SETTLE).until(() -> proxy.groups().get(CONSUMERS)
                .map(GroupConfig::inPlace).orElse(false));
        final MessageFilter red = Filters.jmsSelector("color = 'red'");
        sendColored("blue0", "blue");
        sendColored("red1", "red");
        final List<PoppedMessage> first = result(proxy.pop(new PopRequest(CONSUMERS, TOPIC, red, 8, 60_000, 0)))
                .messages();
        assertThat(first).extracting(InPlaceSeamTest::body).containsExactly("red1");
        result(proxy.ack(CONSUMERS, first.get(0).receiptHandle()));

        assertThat(result(proxy.scale(TOPIC, 1, List.of("g2"))).openSegment(0).group()).isEqualTo("g2");
        sendColored("red2", "red");

        // blue0 is still in g1's segment, taken by no one; the selector's POP gets red2 of g2 all the same.
        final List<PoppedMessage> next = result(proxy.pop(new PopRequest(CONSUMERS, TOPIC, red, 8, 60_000, 5_000)))
                .messages();
        assertThat(next).extracting(InPlaceSeamTest::body).containsExactly("red2");
        // A POP without a selector is still held: blue0 comes first, and nothing of g2 while it is in flight.
        final List<PoppedMessage> all = pop(8, 0);
        assertThat(all).extracting(InPlaceSeamTest::body).containsExactly("blue0");
    }

    private void sendColored(final String body, final String color) throws Exception {
        result(proxy.send(Message.builder(TOPIC).body(body.getBytes(StandardCharsets.UTF_8)).property("color", color)
                .build()));
    }
}
