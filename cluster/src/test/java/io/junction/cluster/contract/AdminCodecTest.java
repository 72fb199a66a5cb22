package io.junction.cluster.contract;

import static io.junction.cluster.contract.WireRoundTrip.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.cluster.contract.AdminCodec.BrowseRequestSpec;
import io.junction.cluster.contract.MirrorSnapshot.QueueRange;
import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.RuntimeFigures;
import io.junction.core.filter.TagFilter;
import io.junction.core.group.ConsumerClient;
import io.junction.core.group.QueueLag;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Round trips of the types the proxy operations carry, field by field, every byte read. */
class AdminCodecTest {

    @Test
    void shouldRoundTripTopologyWithAndWithoutALeader() {
        final StoreTopology led = new StoreTopology("n2", Map.of("n1", "10.0.0.1:9801", "n2", "10.0.0.2:9801"));
        assertThat(roundTrip(led, AdminCodec::writeTopology, AdminCodec::readTopology)).isEqualTo(led);
        assertThat(led.leaderContract()).isEqualTo("10.0.0.2:9801");
        final StoreTopology election = new StoreTopology(null, Map.of("n1", "10.0.0.1:9801"));
        final StoreTopology back = roundTrip(election, AdminCodec::writeTopology, AdminCodec::readTopology);
        assertThat(back).isEqualTo(election);
        assertThat(back.leaderContract()).isNull();
    }

    @Test
    void shouldRoundTripAMirrorSnapshot() {
        final ConsumerClient client = new ConsumerClient("c1", Map.of("orders",
                new ConsumerClient.Subscription("TAG", "a || b")), true, 1234L);
        final MirrorSnapshot snapshot = new MirrorSnapshot(Map.of("topics", new byte[] {1, 2, 3}, "offsets",
                new byte[0]), List.of(new QueueRange("orders", 0, 5, 17), new QueueRange("orders", 1, 0, 0)),
                Map.of("g", List.of(client)), 72L * 3600 * 1000);
        final MirrorSnapshot back = roundTrip(snapshot, AdminCodec::writeMirror, AdminCodec::readMirror);
        assertThat(back.tables().keySet()).containsExactlyInAnyOrder("topics", "offsets");
        assertThat(back.tables().get("topics")).containsExactly(1, 2, 3);
        assertThat(back.queues()).isEqualTo(snapshot.queues());
        assertThat(back.clients()).isEqualTo(snapshot.clients());
        assertThat(back.retentionMillis()).isEqualTo(snapshot.retentionMillis());
    }

    @Test
    void shouldRoundTripTopicsAndGroupsInTheStoresOwnCodec() {
        final TopicConfig topic = new TopicConfig("fifo-orders", 7, TopicType.FIFO, TopicConfig.PERM_READ,
                Map.of("message.type", "FIFO"));
        assertThat(roundTrip(topic, AdminCodec::writeTopic, AdminCodec::readTopic)).isEqualTo(topic);
        final GroupConfig group = new GroupConfig("g", 3, true, false, Map.of(GroupConfig.IN_PLACE_ATTRIBUTE, "true"));
        assertThat(roundTrip(group, AdminCodec::writeGroup, AdminCodec::readGroup)).isEqualTo(group);
        assertThat(roundTrip(Optional.of(group), AdminCodec::writeOptionalGroup, AdminCodec::readOptionalGroup))
                .contains(group);
        assertThat(roundTrip(Optional.<GroupConfig>empty(), AdminCodec::writeOptionalGroup,
                AdminCodec::readOptionalGroup)).isEmpty();
    }

    @Test
    void shouldRoundTripBrowseRequestsAndResults() {
        final BrowseRequest request = new BrowseRequest("g", "orders", TagFilter.parse("a"), new long[] {3, 9}, 16);
        final BrowseRequestSpec spec = roundTrip(request, AdminCodec::writeBrowseRequest,
                AdminCodec::readBrowseRequest);
        final BrowseRequest back = spec.compile();
        assertThat(back.group()).isEqualTo("g");
        assertThat(back.topic()).isEqualTo("orders");
        assertThat(back.positions()).containsExactly(3, 9);
        assertThat(back.maxMessages()).isEqualTo(16);
        assertThat(back.filter().spec()).isEqualTo(request.filter().spec());
        final BrowseRequest fromStart = new BrowseRequest("g", "orders", null, null, 1);
        assertThat(roundTrip(fromStart, AdminCodec::writeBrowseRequest, AdminCodec::readBrowseRequest).positions())
                .isNull();
        final BrowseResult result = new BrowseResult(List.of(), new long[] {4, 10}, true);
        final BrowseResult resultBack = roundTrip(result, AdminCodec::writeBrowseResult,
                AdminCodec::readBrowseResult);
        assertThat(resultBack.positions()).containsExactly(4, 10);
        assertThat(resultBack.end()).isTrue();
        assertThat(resultBack.messages()).isEmpty();
    }

    @Test
    void shouldRoundTripConsumerTypes() {
        final Map<String, ConsumerClient.Subscription> subs = Map.of("a", new ConsumerClient.Subscription("SQL92",
                "x > 1"), "b", new ConsumerClient.Subscription("TAG", "*"));
        assertThat(roundTrip(subs, AdminCodec::writeSubscriptions, AdminCodec::readSubscriptions)).isEqualTo(subs);
        assertThat(roundTrip(Set.of(0, 3, 5), AdminCodec::writeQueueIds, AdminCodec::readQueueIds))
                .containsExactlyInAnyOrder(0, 3, 5);
        final List<QueueLag> lags = List.of(new QueueLag(0, 5, 9, 4, 1000, 900), new QueueLag(1, -1, 0, 0, -1, -1));
        assertThat(roundTrip(lags, AdminCodec::writeLags, AdminCodec::readLags)).isEqualTo(lags);
        final Map<Integer, Long> offsets = Map.of(0, 12L, 1, 0L);
        assertThat(roundTrip(offsets, AdminCodec::writeQueueOffsets, AdminCodec::readQueueOffsets))
                .isEqualTo(offsets);
    }

    @Test
    void shouldRoundTripRuntimeFigures() {
        final RuntimeFigures figures = new RuntimeFigures(1L, new RuntimeFigures.Rates(1.5, 2.5, 3.5),
                new RuntimeFigures.Rates(0, 0.25, 0.5), new RuntimeFigures.Rates(4, 5, 6),
                new RuntimeFigures.Rates(7, 8, 9), new RuntimeFigures.Totals(10, 11, 12),
                new RuntimeFigures.Totals(13, 14, 15), 16, 17, 18, 19, 0.42, 20);
        assertThat(roundTrip(figures, AdminCodec::writeRuntime, AdminCodec::readRuntime)).isEqualTo(figures);
    }

    @Test
    void shouldRefuseACountLargerThanWhatFollows() {
        final ByteBuf buf = Unpooled.buffer();
        try {
            buf.writeInt(1_000_000); // a million queue ids, no bytes
            assertThatThrownBy(() -> AdminCodec.readQueueIds(buf)).isInstanceOf(MalformedFrameException.class);
        } finally {
            buf.release();
        }
    }
}
