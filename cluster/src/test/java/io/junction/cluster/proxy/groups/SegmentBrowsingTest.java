package io.junction.cluster.proxy.groups;

import static io.junction.cluster.proxy.groups.SingleReplicaGroups.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Browsing (a JMS queue browser) through the proxy a queue scaled from g1 to g2 and a second queue on g2: each queue's
 * old segment's messages, then its new segment's, in order, each once, in pages of any size; what the consumer group
 * consumed is not shown (real stores behind real contract servers, over real sockets).
 */
class SegmentBrowsingTest {
    private static final String TOPIC = "browsed";
    private static final String CONSUMERS = "browsers";

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

    private void send(final int queue, final String body) throws Exception {
        result(proxy.send(Message.builder(TOPIC).queueId(queue).body(body.getBytes(StandardCharsets.UTF_8)).build()));
    }

    private static String body(final StoredMessage m) {
        return new String(m.bodyBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldBrowseEachQueueAcrossItsSegmentsInOrder() throws Exception {
        result(proxy.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        for (int i = 0; i < 3; i++) {
            send(0, "a" + i);
        }
        send(1, "b0");
        final TopicPlacement scaled = result(proxy.scale(TOPIC, 2, List.of("g2")));
        assertThat(scaled.queue(0)).hasSize(2);
        assertThat(scaled.openSegment(0).group()).isEqualTo("g2");
        send(0, "a3");
        send(0, "a4");
        send(1, "b1");

        final List<String> all = List.of("a0", "a1", "a2", "a3", "a4", "b0", "b1");
        for (int page = 1; page <= 8; page++) {
            assertThat(browseAll(page)).as("pages of %d", page).containsExactlyElementsOf(all);
        }

        // The group consumed a0 and a1 (popped and acked): the browser starts after them.
        final List<PoppedMessage> popped = new ArrayList<>();
        final long end = System.nanoTime() + SingleReplicaGroups.SETTLE.toNanos();
        while (popped.stream().filter(m -> body(m.message()).startsWith("a")).count() < 2
                && System.nanoTime() < end) {
            popped.addAll(result(proxy.pop(new PopRequest(CONSUMERS, TOPIC, null, 1, 60_000, 0))).messages());
        }
        for (PoppedMessage m : popped) {
            result(proxy.ack(CONSUMERS, m.receiptHandle()));
        }
        final List<String> consumed = popped.stream().map(m -> body(m.message())).toList();
        assertThat(browseAll(3)).as("after %s were consumed", consumed)
                .containsExactlyElementsOf(all.stream().filter(b -> !consumed.contains(b)).toList());
    }

    /** Browses the topic to its end in pages of {@code page} messages. */
    private List<String> browseAll(final int page) throws Exception {
        final List<String> bodies = new ArrayList<>();
        long[] positions = null;
        for (int calls = 0; calls < 100; calls++) {
            final BrowseResult r = result(proxy.browse(new BrowseRequest(CONSUMERS, TOPIC, null, positions, page)));
            assertThat(r.messages().size()).isLessThanOrEqualTo(page);
            r.messages().forEach(m -> bodies.add(body(m)));
            positions = r.positions();
            if (r.end()) {
                return bodies;
            }
        }
        throw new AssertionError("no end after 100 browses: " + bodies);
    }
}
