package io.junction.kafka;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.SyncGroupRequest;

/**
 * The classic group protocol's requests: FindCoordinator (this node coordinates every group), JoinGroup, SyncGroup,
 * Heartbeat and LeaveGroup, translated to {@link ConsumerGroup} calls; DescribeGroups and ListGroups for AdminClient
 * (groups used since the broker started).
 */
final class GroupApis {
    /** FindCoordinator key types: a consumer group, a transactional id. */
    static final byte GROUP_KEY = 0;
    static final byte TRANSACTION_KEY = 1;

    private final GroupCoordinator coordinator;
    private final int nodeId;

    GroupApis(final GroupCoordinator coordinator, final int nodeId) {
        this.coordinator = coordinator;
        this.nodeId = nodeId;
    }

    CompletableFuture<ApiMessage> findCoordinator(final KafkaRequest request) {
        final FindCoordinatorRequestData data = ((FindCoordinatorRequest) request.body()).data();
        final KafkaConnection c = request.connection();
        final ClientScope scope = request.connection().scope();
        if (request.version() < 4) {
            final Errors error = coordinatorError(scope, data.keyType(), data.key());
            final FindCoordinatorResponseData r = new FindCoordinatorResponseData().setErrorCode(error.code());
            return done(error == Errors.NONE ? r.setNodeId(nodeId).setHost(c.advertisedHost())
                    .setPort(c.advertisedPort()) : r.setNodeId(-1).setHost("").setPort(-1));
        }
        final List<FindCoordinatorResponseData.Coordinator> coordinators = new ArrayList<>();
        for (String key : data.coordinatorKeys()) {
            final Errors error = coordinatorError(scope, data.keyType(), key);
            final FindCoordinatorResponseData.Coordinator co = new FindCoordinatorResponseData.Coordinator()
                    .setKey(key).setErrorCode(error.code());
            coordinators.add(error == Errors.NONE ? co.setNodeId(nodeId).setHost(c.advertisedHost())
                    .setPort(c.advertisedPort()) : co.setNodeId(-1).setHost("").setPort(-1));
        }
        return done(new FindCoordinatorResponseData().setCoordinators(coordinators));
    }

    private static Errors coordinatorError(final ClientScope scope, final byte keyType, final String key) {
        if (keyType == TRANSACTION_KEY) {
            return key == null || key.isEmpty() ? Errors.INVALID_REQUEST : Errors.NONE;
        }
        if (keyType != GROUP_KEY) {
            return Errors.INVALID_REQUEST;
        }
        if (!GroupCoordinator.isValidGroupId(key)) {
            return Errors.INVALID_GROUP_ID;
        }
        return scope.mayUseGroup(scope.group(key)) ? Errors.NONE : Errors.GROUP_AUTHORIZATION_FAILED;
    }

    /** Why the client may not use a group (NONE when it may). */
    static Errors groupError(final ClientScope scope, final String groupId) {
        if (!GroupCoordinator.isValidGroupId(groupId)) {
            return Errors.INVALID_GROUP_ID;
        }
        return scope.mayUseGroup(scope.group(groupId)) ? Errors.NONE : Errors.GROUP_AUTHORIZATION_FAILED;
    }

    CompletableFuture<ApiMessage> joinGroup(final KafkaRequest request) {
        final JoinGroupRequestData data = ((JoinGroupRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final Errors refused = groupError(scope, data.groupId());
        if (refused != Errors.NONE) {
            return done(joinError(data, refused));
        }
        if (data.sessionTimeoutMs() < GroupCoordinator.MIN_SESSION_TIMEOUT_MS
                || data.sessionTimeoutMs() > GroupCoordinator.MAX_SESSION_TIMEOUT_MS) {
            return done(joinError(data, Errors.INVALID_SESSION_TIMEOUT));
        }
        final InetSocketAddress remote = request.connection().remoteAddress();
        final String host = remote == null ? "/unknown" : "/" + remote.getAddress().getHostAddress();
        return coordinator.group(scope.group(data.groupId()), data.groupId()).join(data, request.header().clientId(),
                host, request.version() >= 4, coordinator.now()).thenApply(r -> r);
    }

    private static JoinGroupResponseData joinError(final JoinGroupRequestData data, final Errors error) {
        return new JoinGroupResponseData().setErrorCode(error.code()).setMemberId(data.memberId())
                .setGenerationId(-1).setLeader("").setMembers(List.of());
    }

    CompletableFuture<ApiMessage> syncGroup(final KafkaRequest request) {
        final SyncGroupRequestData data = ((SyncGroupRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final Errors refused = groupError(scope, data.groupId());
        if (refused != Errors.NONE) {
            return done(new SyncGroupResponseData().setErrorCode(refused.code()).setAssignment(new byte[0]));
        }
        final ConsumerGroup group = coordinator.existing(scope.group(data.groupId()));
        if (group == null) {
            return done(new SyncGroupResponseData().setErrorCode(Errors.UNKNOWN_MEMBER_ID.code())
                    .setAssignment(new byte[0]));
        }
        final Map<String, byte[]> assignments = new HashMap<>();
        data.assignments().forEach(a -> assignments.put(a.memberId(), a.assignment()));
        return group.sync(data.memberId(), data.generationId(), assignments, coordinator.now()).thenApply(r -> r);
    }

    CompletableFuture<ApiMessage> heartbeat(final KafkaRequest request) {
        final HeartbeatRequestData data = ((HeartbeatRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final Errors refused = groupError(scope, data.groupId());
        if (refused != Errors.NONE) {
            return done(new HeartbeatResponseData().setErrorCode(refused.code()));
        }
        final ConsumerGroup group = coordinator.existing(scope.group(data.groupId()));
        final Errors error = group == null ? Errors.UNKNOWN_MEMBER_ID
                : group.heartbeat(data.memberId(), data.generationId(), coordinator.now());
        return done(new HeartbeatResponseData().setErrorCode(error.code()));
    }

    CompletableFuture<ApiMessage> leaveGroup(final KafkaRequest request) {
        final LeaveGroupRequestData data = ((LeaveGroupRequest) request.body()).data();
        final ClientScope scope = request.connection().scope();
        final Errors refused = groupError(scope, data.groupId());
        if (refused != Errors.NONE) {
            return done(new LeaveGroupResponseData().setErrorCode(refused.code()).setMembers(List.of()));
        }
        final ConsumerGroup group = coordinator.existing(scope.group(data.groupId()));
        final long now = coordinator.now();
        if (request.version() < 3) {
            final Errors error = group == null ? Errors.UNKNOWN_MEMBER_ID : group.leave(data.memberId(), null, now);
            return done(new LeaveGroupResponseData().setErrorCode(error.code()));
        }
        final List<LeaveGroupResponseData.MemberResponse> responses = new ArrayList<>();
        for (LeaveGroupRequestData.MemberIdentity m : data.members()) {
            final Errors error = group == null ? Errors.UNKNOWN_MEMBER_ID
                    : group.leave(m.memberId(), m.groupInstanceId(), now);
            responses.add(new LeaveGroupResponseData.MemberResponse().setMemberId(m.memberId())
                    .setGroupInstanceId(m.groupInstanceId()).setErrorCode(error.code()));
        }
        return done(new LeaveGroupResponseData().setMembers(responses));
    }

    CompletableFuture<ApiMessage> describeGroups(final KafkaRequest request) {
        final DescribeGroupsRequestData data = ((DescribeGroupsRequest) request.body()).data();
        final List<DescribeGroupsResponseData.DescribedGroup> out = new ArrayList<>();
        final ClientScope scope = request.connection().scope();
        for (String id : data.groups()) {
            final Errors refused = groupError(scope, id);
            final ConsumerGroup group = refused == Errors.NONE ? coordinator.existing(scope.group(id)) : null;
            if (refused != Errors.NONE) {
                out.add(new DescribeGroupsResponseData.DescribedGroup().setGroupId(id)
                        .setErrorCode(refused.code()).setGroupState("").setProtocolType("")
                        .setProtocolData(""));
            } else if (group == null) {
                // A group never used since start: Dead to Kafka (its committed offsets stay with the core).
                out.add(new DescribeGroupsResponseData.DescribedGroup().setGroupId(id).setGroupState("Dead")
                        .setProtocolType("").setProtocolData(""));
            } else {
                out.add(group.describe());
            }
        }
        return done(new DescribeGroupsResponseData().setGroups(out));
    }

    CompletableFuture<ApiMessage> listGroups(final KafkaRequest request) {
        final ListGroupsRequestData data = ((ListGroupsRequest) request.body()).data();
        final List<ListGroupsResponseData.ListedGroup> out = new ArrayList<>();
        final ClientScope scope = request.connection().scope();
        for (Map.Entry<String, ConsumerGroup> e : coordinator.groups().entrySet()) {
            if (!scope.ownsGroup(e.getKey()) || !scope.mayUseGroup(e.getKey())) {
                continue; // another tenant's, or one the client may not see
            }
            final ConsumerGroup g = e.getValue();
            final String state = g.stateName();
            final boolean stateOk = data.statesFilter().isEmpty() || data.statesFilter().stream()
                    .anyMatch(state::equalsIgnoreCase);
            final boolean typeOk = data.typesFilter().isEmpty() || data.typesFilter().stream()
                    .anyMatch("classic"::equalsIgnoreCase);
            if (stateOk && typeOk) {
                out.add(new ListGroupsResponseData.ListedGroup().setGroupId(g.id())
                        .setProtocolType(g.protocolType() == null ? "consumer" : g.protocolType())
                        .setGroupState(state).setGroupType("classic"));
            }
        }
        return done(new ListGroupsResponseData().setGroups(out));
    }

    private static CompletableFuture<ApiMessage> done(final ApiMessage message) {
        return CompletableFuture.completedFuture(message);
    }
}
