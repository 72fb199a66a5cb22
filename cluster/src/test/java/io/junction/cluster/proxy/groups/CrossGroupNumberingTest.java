package io.junction.cluster.proxy.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PopRequest;
import io.junction.core.PoppedMessage;
import io.junction.core.PullRequest;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import io.junction.core.message.RecordLayout;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What two store groups number alike, handed out apart by a proxy over both (real stores behind real contract
 * servers, over real sockets): commit-log offsets (each group's log starts at 0) and redelivered messages' retry
 * queues (each group's numbered from queue 0, offset 0), which a Remoting client names messages by.
 */
class CrossGroupNumberingTest {
    private static final String TOPIC = "ids";
    private static final String CONSUMERS = "id-consumers";

    @TempDir
    Path dir;

    private SingleReplicaGroups groups;
    private GroupedMessaging proxy;

    @BeforeEach
    void start() throws Exception {
        groups = new SingleReplicaGroups(dir, 2);
        proxy = (GroupedMessaging) groups.proxy(groups.first(2)).messaging();
        get(proxy.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        assertThat(proxy.placements()).containsEntry(TOPIC, "g1;g2");
    }

    @AfterEach
    void stop() {
        groups.close();
    }

    private static <T> T get(final CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    private static String body(final StoredMessage m) {
        return new String(m.bodyBytes(), StandardCharsets.UTF_8);
    }

    /** Sends {@code body} to logical queue {@code queue} (0 on g1, 1 on g2). */
    private SendResult send(final int queue, final String body) throws Exception {
        return get(proxy.send(Message.builder(TOPIC).queueId(queue).body(body.getBytes(StandardCharsets.UTF_8))
                .build()));
    }

    @Test
    void shouldFindEachGroupsMessageByTheLogOffsetAndOffsetIdItWasHandedOutWith() throws Exception {
        // The same sends to each group's fresh store: their messages lie at the same offsets of the two logs.
        final List<SendResult> sent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sent.add(send(0, "g1-" + i));
            sent.add(send(1, "g2-" + i));
        }
        final Set<Long> offsets = new HashSet<>();
        for (int i = 0; i < sent.size(); i++) {
            final SendResult r = sent.get(i);
            final String expected = (i % 2 == 0 ? "g1-" : "g2-") + i / 2;
            offsets.add(r.commitLogOffset());
            assertThat(get(proxy.lookup(r.commitLogOffset()))).as("lookup of %s's log offset", expected)
                    .map(CrossGroupNumberingTest::body).contains(expected);
            final Optional<StoredMessage> byId = get(proxy.queryById(TOPIC, r.offsetMessageId()));
            assertThat(byId).as("%s by its offset id", expected).map(CrossGroupNumberingTest::body)
                    .contains(expected);
            assertThat(byId.get().offsetMessageId()).isEqualTo(r.offsetMessageId());
            assertThat(get(proxy.queryById(TOPIC, r.uniqueId()))).map(CrossGroupNumberingTest::body)
                    .contains(expected);
        }
        assertThat(offsets).as("every message's log offset is its own").hasSize(6);

        // A message read by offset carries the offset it is looked up by (a Remoting consumer's send-back names it so).
        for (int queue = 0; queue < 2; queue++) {
            final List<StoredMessage> read = get(proxy.pull(new PullRequest(CONSUMERS, TOPIC, queue, 0, 8, null, 0)))
                    .messages();
            assertThat(read).hasSize(3);
            for (StoredMessage m : read) {
                assertThat(get(proxy.lookup(m.commitLogOffset()))).map(CrossGroupNumberingTest::body)
                        .contains(body(m));
                assertThat(m.record().getLong(RecordLayout.PHYSICAL_OFFSET_OFFSET))
                        .as("the record a front-end hands out says the same").isEqualTo(m.commitLogOffset());
            }
        }
    }

    @Test
    void shouldHandOutTwoGroupsRedeliveredMessagesUnderDifferentQueueIdsAndOffsets() throws Exception {
        send(0, "from-g1");
        send(1, "from-g2");
        final List<PoppedMessage> first = popAll(2, false);
        assertThat(first).extracting(m -> body(m.message())).containsExactlyInAnyOrder("from-g1", "from-g2");
        for (PoppedMessage m : first) {
            // Failed: each comes again through its group's own retry topic, both the first message there.
            get(proxy.changeInvisibleTime(CONSUMERS, m.receiptHandle(), 0));
        }
        final List<PoppedMessage> again = popAll(2, true);
        assertThat(again).extracting(m -> body(m.message())).containsExactlyInAnyOrder("from-g1", "from-g2");
        assertThat(again).extracting(m -> m.message().topic() + "/" + m.message().queueId() + "/"
                + m.message().queueOffset()).as("a client naming a message by queue id and offset tells them apart")
                .doesNotHaveDuplicates();
        for (PoppedMessage m : again) {
            assertThat(get(proxy.lookup(m.message().commitLogOffset()))).map(CrossGroupNumberingTest::body)
                    .contains(body(m.message()));
            get(proxy.ack(CONSUMERS, m.receiptHandle()));
        }
        assertThat(get(proxy.pop(new PopRequest(CONSUMERS, TOPIC, null, 8, 1_000, 1_500))).messages())
                .as("both acked: nothing comes again").isEmpty();
    }

    /** Pops until {@code count} messages came (within the settle time), each redelivered or not as {@code again}. */
    private List<PoppedMessage> popAll(final int count, final boolean again) throws Exception {
        final List<PoppedMessage> got = new ArrayList<>();
        final long end = System.nanoTime() + SingleReplicaGroups.SETTLE.toNanos();
        while (got.size() < count && System.nanoTime() < end) {
            for (PoppedMessage m : get(proxy.pop(new PopRequest(CONSUMERS, TOPIC, null, 8, 30_000, 1_000)))
                    .messages()) {
                assertThat(m.message().reconsumeTimes() > 0).as("redelivered").isEqualTo(again);
                got.add(m);
            }
        }
        return got;
    }
}
