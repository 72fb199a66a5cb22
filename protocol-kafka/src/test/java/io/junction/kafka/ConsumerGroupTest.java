package io.junction.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The classic group state machine, on a manual clock. */
class ConsumerGroupTest {
    private long now = 1_000;
    private final ConsumerGroup group = new ConsumerGroup("g", 0);

    private static JoinGroupRequestData join(final String memberId, final String... protocols) {
        final JoinGroupRequestProtocolCollection list = new JoinGroupRequestProtocolCollection();
        for (String p : protocols) {
            list.add(new JoinGroupRequestProtocol().setName(p).setMetadata(p.getBytes()));
        }
        return new JoinGroupRequestData().setGroupId("g").setMemberId(memberId).setProtocolType("consumer")
                .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(30_000).setProtocols(list);
    }

    /** Joins as a new member the v4 way: MEMBER_ID_REQUIRED, then again with the id. */
    private CompletableFuture<JoinGroupResponseData> joinNew(final String client, final String... protocols) {
        final JoinGroupResponseData first = group.join(join("", protocols), client, "/h", true, now).join();
        assertThat(Errors.forCode(first.errorCode())).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(first.memberId()).startsWith(client + "-");
        return group.join(join(first.memberId(), protocols), client, "/h", true, now);
    }

    @Test
    void shouldRebalanceWhenASecondMemberJoinsAndHandOutTheLeadersAssignments() {
        final JoinGroupResponseData a = joinNew("a", "range").join();
        assertThat(a.generationId()).isEqualTo(1);
        assertThat(a.leader()).isEqualTo(a.memberId());
        assertThat(group.sync(a.memberId(), 1, Map.of(a.memberId(), new byte[] {1}), now).join().assignment())
                .containsExactly(1);
        assertThat(group.state()).isEqualTo(ConsumerGroup.State.STABLE);

        final CompletableFuture<JoinGroupResponseData> b = joinNew("b", "range");
        assertThat(b).isNotDone(); // waits for a to join again
        assertThat(group.heartbeat(a.memberId(), 1, now)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        final JoinGroupResponseData a2 = group.join(join(a.memberId(), "range"), "a", "/h", true, now).join();
        assertThat(b).isDone();
        assertThat(a2.generationId()).isEqualTo(2);
        assertThat(a2.leader()).isEqualTo(a.memberId());
        assertThat(a2.members()).hasSize(2);
        assertThat(b.join().members()).isEmpty();
        final String bId = b.join().memberId();

        final CompletableFuture<SyncGroupResponseData> bSync = group.sync(bId, 2, Map.of(), now);
        assertThat(bSync).isNotDone(); // waits for the leader's assignments
        group.sync(a.memberId(), 2, Map.of(a.memberId(), new byte[] {1}, bId, new byte[] {2}), now);
        assertThat(bSync.join().assignment()).containsExactly(2);
        assertThat(group.heartbeat(bId, 2, now)).isEqualTo(Errors.NONE);
        assertThat(group.heartbeat(bId, 1, now)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(group.checkCommit(bId, 2)).isEqualTo(Errors.NONE);
        assertThat(group.checkCommit(bId, 1)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(group.checkCommit("", -1)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void shouldRemoveAMemberWhoseSessionExpiredAndOneThatLeaves() {
        final JoinGroupResponseData a = joinNew("a", "range").join();
        group.sync(a.memberId(), 1, Map.of(), now);
        final CompletableFuture<JoinGroupResponseData> b = joinNew("b", "range");
        group.join(join(a.memberId(), "range"), "a", "/h", true, now).join();
        final String bId = b.join().memberId();
        group.sync(a.memberId(), 2, Map.of(), now);
        // b stays silent past its session; a keeps beating.
        now += 6_000;
        group.heartbeat(a.memberId(), 2, now);
        now += 6_000;
        group.tick(now);
        assertThat(group.heartbeat(bId, 2, now)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(group.heartbeat(a.memberId(), 2, now)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        final JoinGroupResponseData a3 = group.join(join(a.memberId(), "range"), "a", "/h", true, now).join();
        assertThat(a3.generationId()).isEqualTo(3);
        assertThat(a3.members()).extracting(JoinGroupResponseData.JoinGroupResponseMember::memberId)
                .containsExactly(a.memberId());
        assertThat(group.leave(a.memberId(), null, now)).isEqualTo(Errors.NONE);
        assertThat(group.state()).isEqualTo(ConsumerGroup.State.EMPTY);
        assertThat(group.checkCommit("", -1)).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldDropAMemberThatDoesNotJoinWithinTheRebalanceTimeout() {
        final JoinGroupResponseData a = joinNew("a", "range").join();
        group.sync(a.memberId(), 1, Map.of(), now);
        final CompletableFuture<JoinGroupResponseData> b = joinNew("b", "range");
        now += 30_001;
        group.tick(now);
        assertThat(b.join().generationId()).isEqualTo(2);
        assertThat(b.join().leader()).isEqualTo(b.join().memberId());
        assertThat(group.heartbeat(a.memberId(), 2, now)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void shouldRefuseAMemberWithoutACommonProtocolAndAnUnknownMemberId() {
        joinNew("a", "range", "roundrobin").join();
        assertThat(Errors.forCode(group.join(join("", "sticky"), "c", "/h", true, now).join().errorCode()))
                .isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(Errors.forCode(group.join(join("nobody", "range"), "c", "/h", true, now).join().errorCode()))
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void shouldWaitTheInitialDelayForMoreMembersBeforeTheFirstGeneration() {
        final ConsumerGroup delayed = new ConsumerGroup("d", 3_000);
        final JoinGroupResponseData idA = delayed.join(join("", "range"), "a", "/h", true, now).join();
        final CompletableFuture<JoinGroupResponseData> a = delayed.join(join(idA.memberId(), "range"), "a", "/h",
                true, now);
        assertThat(a).isNotDone();
        now += 1_000;
        final JoinGroupResponseData idB = delayed.join(join("", "range"), "b", "/h", true, now).join();
        final CompletableFuture<JoinGroupResponseData> b = delayed.join(join(idB.memberId(), "range"), "b", "/h",
                true, now);
        now += 2_500;
        delayed.tick(now);
        assertThat(a).isNotDone(); // b's arrival extended the delay
        now += 600;
        delayed.tick(now);
        assertThat(a.join().generationId()).isEqualTo(1);
        assertThat(a.join().members()).hasSize(2);
        assertThat(b.join().generationId()).isEqualTo(1);
    }
}
