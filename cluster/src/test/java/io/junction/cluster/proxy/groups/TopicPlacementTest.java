package io.junction.cluster.proxy.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The placement's text form both ways, round-robin spreading, and the offset arithmetic of segments. */
class TopicPlacementTest {

    @Test
    void shouldSpreadQueuesRoundRobinAndKeepPlacedOnes() {
        final TopicPlacement four = TopicPlacement.spread("t", 4, List.of("g1", "g2"), null);
        assertThat(four.format()).isEqualTo("g1;g2;g1;g2");
        assertThat(four.groups()).containsExactly("g1", "g2");
        assertThat(four.physicalQueueCount("g1")).isEqualTo(3);
        assertThat(four.physicalQueueCount("g2")).isEqualTo(4);
        assertThat(TopicPlacement.spread("t", 6, List.of("g1", "g2", "g3"), four).format())
                .isEqualTo("g1;g2;g1;g2;g2;g3");
    }

    @Test
    void shouldReadBackWhatItWrites() {
        final String text = "g1:0:0:0:3,g2:1:3:0:-;g2;g1:4:0:7:-";
        final TopicPlacement p = TopicPlacement.parse("t", text);
        assertThat(p.format()).isEqualTo(text);
        assertThat(p.queue(0)).containsExactly(new QueueSegment("g1", 0, 0, 0, 3),
                new QueueSegment("g2", 1, 3, 0, QueueSegment.OPEN));
        assertThat(p.queue(1)).containsExactly(QueueSegment.fresh("g2", 1));
        assertThat(p.openSegment(0).group()).isEqualTo("g2");
        assertThat(p.segmentFor(0, 2).group()).isEqualTo("g1");
        assertThat(p.segmentFor(0, 3).group()).isEqualTo("g2");
        assertThat(p.segmentOf(0, "g1", 0, 2)).isEqualTo(p.queue(0).get(0));
        assertThat(p.segmentOf(0, "g1", 0, 3)).as("past the seal").isNull();
        assertThat(p.segmentOf(2, "g1", 4, 6)).as("before the segment").isNull();
        assertThat(p.segmentOf(2, "g1", 4, 9).toLogical(9)).isEqualTo(2);
    }

    @Test
    void shouldReadClosedQueuesAtTheEndAndCountOnlyTheOpenOnesAsWriteQueues() {
        final String text = "g1;g2;g1:2:0:0:5;g1:3:0:0:2,g2:3:2:0:7";
        final TopicPlacement p = TopicPlacement.parse("t", text);
        assertThat(p.format()).isEqualTo(text);
        assertThat(p.queueCount()).isEqualTo(4);
        assertThat(p.writeQueueCount()).isEqualTo(2);
        assertThat(p.closed(1)).isFalse();
        assertThat(p.closed(2)).isTrue();
        assertThat(p.closed(3)).isTrue();
        assertThat(SealedQueueRetry.writable(p, 3)).as("a write aimed at a closed queue goes to an open one")
                .isEqualTo(new SealedQueueRetry.Target(1, QueueSegment.fresh("g2", 1)));
        assertThat(SealedQueueRetry.writable(p, 0).queue()).isZero();
        assertThatThrownBy(() -> TopicPlacement.parse("t", "g1;g1:1:0:0:5;g2")).as("an open queue after a closed one")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRefuseMalformedText() {
        assertThatThrownBy(() -> TopicPlacement.parse("t", "g1;;g2")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TopicPlacement.parse("t", "g1:0:0:0:3")).as("no open queue")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TopicPlacement.parse("t", "g1:x:0:0:-")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldParseTheStoreGroupList() {
        assertThat(StoreGroup.parseList("g1=a:1,b:2; g2=c:3")).containsExactly(
                new StoreGroup("g1", List.of("a:1", "b:2")), new StoreGroup("g2", List.of("c:3")));
        assertThatThrownBy(() -> StoreGroup.parseList("G1=a:1")).hasMessageContaining("[a-z0-9-]+");
        assertThatThrownBy(() -> StoreGroup.parseList("g1=a:1;g1=b:2")).hasMessageContaining("twice");
        assertThatThrownBy(() -> StoreGroup.parseList("g1=")).hasMessageContaining("no contract address");
        assertThatThrownBy(() -> StoreGroup.parseList("a:1")).hasMessageContaining("name=host:port");
    }
}
