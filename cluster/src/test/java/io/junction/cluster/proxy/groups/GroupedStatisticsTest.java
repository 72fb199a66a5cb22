package io.junction.cluster.proxy.groups;

import static io.junction.cluster.proxy.groups.SingleReplicaGroups.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.RuntimeFigures;
import io.junction.core.engine.TestStores;
import io.junction.core.message.Message;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A proxy's runtime figures (the console's overview, Remoting's broker runtime info) over two store groups are both
 * groups' together, not the metadata group's alone (real stores behind real contract servers, over real sockets).
 */
class GroupedStatisticsTest {
    private static final String TOPIC = "counted";

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

    @Test
    void shouldSumEveryGroupsFigures() throws Exception {
        result(proxy.topics().createIfAbsent(TopicConfig.of(TOPIC, 2)));
        for (int i = 0; i < 3; i++) {
            result(proxy.send(Message.builder(TOPIC).queueId(0).body(("a" + i).getBytes(StandardCharsets.UTF_8))
                    .build()));
        }
        for (int i = 0; i < 5; i++) {
            result(proxy.send(Message.builder(TOPIC).queueId(1).body(("b" + i).getBytes(StandardCharsets.UTF_8))
                    .build()));
        }
        groups.stores().forEach(TestStores::awaitIndexed);
        final RuntimeFigures g1 = result(groups.store(0).statistics().runtime());
        final RuntimeFigures g2 = result(groups.store(1).statistics().runtime());
        assertThat(g2.storedTotals().now()).as("g2 stored queue 1's five").isGreaterThanOrEqualTo(5);
        final RuntimeFigures both = result(proxy.statistics().runtime());
        assertThat(both.storedTotals().now()).isEqualTo(g1.storedTotals().now() + g2.storedTotals().now());
        assertThat(both.logMaxOffset() - both.logMinOffset())
                .isEqualTo(g1.logMaxOffset() - g1.logMinOffset() + g2.logMaxOffset() - g2.logMinOffset());
        assertThat(both.bootTimestamp()).isEqualTo(Math.min(g1.bootTimestamp(), g2.bootTimestamp()));
        assertThat(both.earliestMessageTime()).isEqualTo(Math.min(g1.earliestMessageTime(),
                g2.earliestMessageTime()));
    }
}
