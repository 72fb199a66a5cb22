package io.junction.kafka;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * One consumer group of the classic protocol: its members and the rebalance state machine.
 *
 * <pre>
 *   EMPTY --join--> PREPARING_REBALANCE --all joined (or rebalance timeout)--> COMPLETING_REBALANCE
 *   COMPLETING_REBALANCE --leader's SyncGroup--> STABLE
 *   STABLE / COMPLETING_REBALANCE --join, leave, session expiry--> PREPARING_REBALANCE
 *   PREPARING_REBALANCE --last member gone--> EMPTY
 * </pre>
 *
 * A JoinGroup is answered when the rebalance completes: every member that was in the group has joined again, or the
 * longest rebalance timeout passed (who did not join is removed). A group coming out of EMPTY first waits
 * {@code kafka.group-initial-rebalance-delay-ms} (extended by each new member, up to the rebalance timeout) so members
 * starting together share the first generation. The leader (the first member) gets every member's subscription and
 * sends the assignments in its SyncGroup; the others' SyncGroups wait for it. All methods are synchronized; futures
 * are completed inside, and their callbacks only hop to event loops.
 */
final class ConsumerGroup {
    enum State { EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE }

    /** A member: its subscription (protocols), timeouts, liveness and the answer it waits for. */
    static final class Member {
        final String id;
        String instanceId;
        String clientId;
        String host;
        int sessionTimeoutMs;
        int rebalanceTimeoutMs;
        Map<String, byte[]> protocols = new LinkedHashMap<>();
        CompletableFuture<JoinGroupResponseData> join;
        CompletableFuture<SyncGroupResponseData> sync;
        byte[] assignment = new byte[0];
        long lastSeen;

        Member(final String id) {
            this.id = id;
        }
    }

    private final String id;
    private final long initialDelayMs;
    private State state = State.EMPTY;
    private int generation;
    private String protocolType;
    private String protocolName;
    private String leader;
    private final Map<String, Member> members = new LinkedHashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED, by when they must join. */
    private final Map<String, Long> pending = new HashMap<>();
    private long notBefore;
    private long deadline;

    ConsumerGroup(final String id, final long initialDelayMs) {
        this.id = id;
        this.initialDelayMs = initialDelayMs;
    }

    String id() {
        return id;
    }

    synchronized State state() {
        return state;
    }

    synchronized int generation() {
        return generation;
    }

    synchronized String protocolType() {
        return protocolType;
    }

    synchronized String protocolName() {
        return protocolName;
    }

    /** The group as DescribeGroups shows it. */
    synchronized DescribedGroup describe() {
        final List<DescribedGroupMember> list = new ArrayList<>();
        for (Member m : members.values()) {
            list.add(new DescribedGroupMember().setMemberId(m.id).setGroupInstanceId(m.instanceId)
                    .setClientId(m.clientId == null ? "" : m.clientId).setClientHost(m.host)
                    .setMemberMetadata(protocolName == null ? new byte[0]
                            : m.protocols.getOrDefault(protocolName, new byte[0]))
                    .setMemberAssignment(m.assignment));
        }
        return new DescribedGroup().setGroupId(id).setGroupState(stateName())
                .setProtocolType(protocolType == null ? "" : protocolType)
                .setProtocolData(protocolName == null ? "" : protocolName).setMembers(list);
    }

    /** The state as Kafka names it. */
    synchronized String stateName() {
        return switch (state) {
            case EMPTY -> "Empty";
            case PREPARING_REBALANCE -> "PreparingRebalance";
            case COMPLETING_REBALANCE -> "CompletingRebalance";
            case STABLE -> "Stable";
        };
    }

    /**
     * Handles a JoinGroup. {@code requireKnownId}: the client can take MEMBER_ID_REQUIRED (v4 and later).
     */
    synchronized CompletableFuture<JoinGroupResponseData> join(final JoinGroupRequestData request,
                                                              final String clientId, final String host,
                                                              final boolean requireKnownId, final long now) {
        if (request.protocols().isEmpty() || request.protocolType() == null || request.protocolType().isEmpty()
                || state != State.EMPTY && !request.protocolType().equals(protocolType)
                || state != State.EMPTY && !sharesAProtocol(request)) {
            return joinError(request.memberId(), Errors.INCONSISTENT_GROUP_PROTOCOL);
        }
        String memberId = request.memberId();
        if (memberId.isEmpty()) {
            memberId = (clientId == null || clientId.isEmpty() ? "consumer" : clientId) + "-" + UUID.randomUUID();
            if (requireKnownId) {
                pending.put(memberId, now + request.sessionTimeoutMs());
                return joinError(memberId, Errors.MEMBER_ID_REQUIRED);
            }
        } else if (!members.containsKey(memberId) && pending.remove(memberId) == null) {
            return joinError(memberId, Errors.UNKNOWN_MEMBER_ID);
        }
        final boolean isNew = !members.containsKey(memberId);
        final Member m = members.computeIfAbsent(memberId, Member::new);
        m.instanceId = request.groupInstanceId();
        m.clientId = clientId;
        m.host = host;
        m.sessionTimeoutMs = request.sessionTimeoutMs();
        m.rebalanceTimeoutMs = request.rebalanceTimeoutMs() > 0 ? request.rebalanceTimeoutMs()
                : request.sessionTimeoutMs();
        m.protocols = new LinkedHashMap<>();
        request.protocols().forEach(p -> m.protocols.put(p.name(), p.metadata()));
        m.lastSeen = now;
        if (m.join != null) {
            m.join.complete(joinResponse(m.id, Errors.UNKNOWN_MEMBER_ID)); // superseded by this join
        }
        m.join = new CompletableFuture<>();
        if (state == State.EMPTY) {
            protocolType = request.protocolType();
            prepareRebalance(now, true);
        } else if (state != State.PREPARING_REBALANCE) {
            prepareRebalance(now, false);
        } else if (isNew && now < notBefore) {
            notBefore = Math.min(now + initialDelayMs, deadline);
        }
        final CompletableFuture<JoinGroupResponseData> answer = m.join;
        maybeCompleteJoin(now);
        return answer;
    }

    private boolean sharesAProtocol(final JoinGroupRequestData request) {
        if (members.isEmpty()) {
            return true;
        }
        return request.protocols().stream().anyMatch(p -> members.values().stream()
                .allMatch(m -> m.protocols.containsKey(p.name())));
    }

    synchronized CompletableFuture<SyncGroupResponseData> sync(final String memberId, final int generationId,
                                                              final Map<String, byte[]> assignments,
                                                              final long now) {
        final Member m = members.get(memberId);
        if (m == null) {
            return syncError(Errors.UNKNOWN_MEMBER_ID);
        }
        if (generationId != generation) {
            return syncError(Errors.ILLEGAL_GENERATION);
        }
        m.lastSeen = now;
        switch (state) {
            case PREPARING_REBALANCE -> {
                return syncError(Errors.REBALANCE_IN_PROGRESS);
            }
            case STABLE -> {
                return CompletableFuture.completedFuture(syncResponse(m.assignment));
            }
            case COMPLETING_REBALANCE -> {
                if (m.sync != null) {
                    m.sync.complete(new SyncGroupResponseData().setErrorCode(Errors.REBALANCE_IN_PROGRESS.code()));
                }
                m.sync = new CompletableFuture<>();
                final CompletableFuture<SyncGroupResponseData> answer = m.sync;
                if (memberId.equals(leader)) {
                    for (Member each : members.values()) {
                        each.assignment = assignments.getOrDefault(each.id, new byte[0]);
                    }
                    state = State.STABLE;
                    for (Member each : members.values()) {
                        if (each.sync != null) {
                            each.sync.complete(syncResponse(each.assignment));
                            each.sync = null;
                        }
                    }
                }
                return answer;
            }
            default -> {
                return syncError(Errors.UNKNOWN_MEMBER_ID);
            }
        }
    }

    synchronized Errors heartbeat(final String memberId, final int generationId, final long now) {
        final Member m = members.get(memberId);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        m.lastSeen = now;
        if (generationId != generation) {
            return Errors.ILLEGAL_GENERATION;
        }
        return state == State.PREPARING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    /** A member leaves; others rebalance. */
    synchronized Errors leave(final String memberId, final String instanceId, final long now) {
        String target = memberId;
        if ((target == null || target.isEmpty()) && instanceId != null) {
            target = members.values().stream().filter(m -> instanceId.equals(m.instanceId)).map(m -> m.id)
                    .findFirst().orElse(null);
        }
        final Member m = target == null ? null : members.get(target);
        if (m == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        remove(m, now);
        return Errors.NONE;
    }

    /** Whether an offset commit from this member and generation may change the group's offsets. */
    synchronized Errors checkCommit(final String memberId, final int generationId) {
        if (generationId < 0 && (memberId == null || memberId.isEmpty())) {
            return state == State.EMPTY ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID; // a consumer without a group
        }
        if (!members.containsKey(memberId)) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (generationId != generation) {
            return Errors.ILLEGAL_GENERATION;
        }
        return state == State.PREPARING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    /** Expires silent members and ids never used, and completes a rebalance whose time has come. */
    synchronized void tick(final long now) {
        pending.values().removeIf(until -> until < now);
        final List<Member> expired = new ArrayList<>();
        for (Member m : members.values()) {
            // A member waiting for its JoinGroup answer is alive: it cannot heartbeat meanwhile.
            if (m.join == null && now - m.lastSeen > m.sessionTimeoutMs) {
                expired.add(m);
            }
        }
        expired.forEach(m -> remove(m, now));
        maybeCompleteJoin(now);
    }

    private void remove(final Member m, final long now) {
        members.remove(m.id);
        if (m.join != null) {
            m.join.complete(joinResponse(m.id, Errors.UNKNOWN_MEMBER_ID));
        }
        if (m.sync != null) {
            m.sync.complete(new SyncGroupResponseData().setErrorCode(Errors.UNKNOWN_MEMBER_ID.code()));
        }
        if (members.isEmpty()) {
            state = State.EMPTY;
            generation++;
            leader = null;
            protocolName = null;
            return;
        }
        if (state != State.PREPARING_REBALANCE) {
            prepareRebalance(now, false);
        }
        maybeCompleteJoin(now);
    }

    private void prepareRebalance(final long now, final boolean fromEmpty) {
        if (state == State.COMPLETING_REBALANCE) {
            for (Member m : members.values()) {
                if (m.sync != null) {
                    m.sync.complete(new SyncGroupResponseData().setErrorCode(Errors.REBALANCE_IN_PROGRESS.code()));
                    m.sync = null;
                }
            }
        }
        state = State.PREPARING_REBALANCE;
        final long timeout = members.values().stream().mapToLong(m -> m.rebalanceTimeoutMs).max().orElse(0);
        deadline = now + timeout;
        notBefore = fromEmpty ? Math.min(now + initialDelayMs, deadline) : now;
    }

    private void maybeCompleteJoin(final long now) {
        if (state != State.PREPARING_REBALANCE) {
            return;
        }
        final boolean allJoined = members.values().stream().allMatch(m -> m.join != null);
        if (!(allJoined && now >= notBefore || now >= deadline)) {
            return;
        }
        for (Iterator<Member> it = members.values().iterator(); it.hasNext(); ) {
            if (it.next().join == null) {
                it.remove(); // did not join in time
            }
        }
        generation++;
        if (members.isEmpty()) {
            state = State.EMPTY;
            leader = null;
            return;
        }
        protocolName = chooseProtocol();
        if (leader == null || !members.containsKey(leader)) {
            leader = members.keySet().iterator().next();
        }
        state = State.COMPLETING_REBALANCE;
        final List<JoinGroupResponseMember> all = new ArrayList<>();
        for (Member m : members.values()) {
            all.add(new JoinGroupResponseMember().setMemberId(m.id).setGroupInstanceId(m.instanceId)
                    .setMetadata(m.protocols.get(protocolName)));
        }
        for (Member m : members.values()) {
            m.lastSeen = now;
            final JoinGroupResponseData r = joinResponse(m.id, Errors.NONE).setGenerationId(generation)
                    .setProtocolType(protocolType).setProtocolName(protocolName).setLeader(leader)
                    .setMembers(m.id.equals(leader) ? all : List.of());
            final CompletableFuture<JoinGroupResponseData> join = m.join;
            m.join = null;
            join.complete(r);
        }
    }

    /** The first protocol of the leader-to-be that every member supports. */
    private String chooseProtocol() {
        final Member first = leader != null && members.containsKey(leader) ? members.get(leader)
                : members.values().iterator().next();
        for (String name : first.protocols.keySet()) {
            if (members.values().stream().allMatch(m -> m.protocols.containsKey(name))) {
                return name;
            }
        }
        return first.protocols.keySet().iterator().next();
    }

    private JoinGroupResponseData joinResponse(final String memberId, final Errors error) {
        return new JoinGroupResponseData().setErrorCode(error.code()).setMemberId(memberId).setGenerationId(-1)
                .setLeader("").setProtocolName(null).setProtocolType(null).setMembers(List.of());
    }

    private CompletableFuture<JoinGroupResponseData> joinError(final String memberId, final Errors error) {
        return CompletableFuture.completedFuture(joinResponse(memberId, error));
    }

    private SyncGroupResponseData syncResponse(final byte[] assignment) {
        return new SyncGroupResponseData().setProtocolType(protocolType).setProtocolName(protocolName)
                .setAssignment(assignment);
    }

    private static CompletableFuture<SyncGroupResponseData> syncError(final Errors error) {
        return CompletableFuture.completedFuture(new SyncGroupResponseData().setErrorCode(error.code())
                .setAssignment(new byte[0]));
    }
}
