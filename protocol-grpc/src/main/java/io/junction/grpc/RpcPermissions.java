package io.junction.grpc;

import apache.rocketmq.v2.AckMessageRequest;
import apache.rocketmq.v2.ChangeInvisibleDurationRequest;
import apache.rocketmq.v2.EndTransactionRequest;
import apache.rocketmq.v2.ForwardMessageToDeadLetterQueueRequest;
import apache.rocketmq.v2.GetOffsetRequest;
import apache.rocketmq.v2.HeartbeatRequest;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessagingServiceGrpc;
import apache.rocketmq.v2.NotifyClientTerminationRequest;
import apache.rocketmq.v2.PullMessageRequest;
import apache.rocketmq.v2.QueryAssignmentRequest;
import apache.rocketmq.v2.QueryOffsetRequest;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.RecallMessageRequest;
import apache.rocketmq.v2.ReceiveMessageRequest;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.SubscriptionEntry;
import apache.rocketmq.v2.TelemetryCommand;
import apache.rocketmq.v2.UpdateOffsetRequest;
import io.grpc.MethodDescriptor;
import io.junction.tenancy.Action;
import io.junction.tenancy.ResourceKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The one table of what each MessagingService RPC needs from the access policy, read from its request. Every RPC of
 * the service has a row (a unit test holds it to that); a call of a method without one is refused.
 *
 * <table>
 *   <caption>RPC → needs</caption>
 *   <tr><th>RPC</th><th>needs</th></tr>
 *   <tr><td>QueryRoute</td><td>topic: PUB or SUB or GET (producers and consumers both ask; a route tells queues
 *   and permissions, nothing of the messages)</td></tr>
 *   <tr><td>QueryAssignment</td><td>topic SUB, group SUB (only push consumers ask)</td></tr>
 *   <tr><td>SendMessage</td><td>each message's topic PUB</td></tr>
 *   <tr><td>RecallMessage</td><td>topic PUB (the producer takes back its own delayed message)</td></tr>
 *   <tr><td>EndTransaction</td><td>topic PUB (and with security on the half message must be of that topic)</td></tr>
 *   <tr><td>ReceiveMessage, AckMessage, ChangeInvisibleDuration, ForwardMessageToDeadLetterQueue</td><td>topic SUB,
 *   group SUB (receipt handles are sealed to their group, so the group check binds them)</td></tr>
 *   <tr><td>PullMessage, UpdateOffset, GetOffset</td><td>topic SUB, group SUB</td></tr>
 *   <tr><td>QueryOffset</td><td>topic SUB (a queue's offsets, nothing of a group's)</td></tr>
 *   <tr><td>Heartbeat, NotifyClientTermination</td><td>group SUB when one is named; else authentication
 *   only (a producer's)</td></tr>
 *   <tr><td>Telemetry</td><td>each Settings command: the subscription group SUB; its publishing topics (PUB) and
 *   subscribed topics (SUB) are {@linkplain #withoutDenied filtered}, not refused. Other commands: authentication
 *   only</td></tr>
 * </table>
 *
 * <p>Why Telemetry filters: a client declares every topic it ever tried in its Settings, and refusing those would end
 * its one Telemetry stream, without which nothing it does works, because of a single denied send. What the
 * declaration grants is what needs guarding: a producer's declared topics route transaction check-backs (with the half
 * message) to it, and a consumer's subscriptions are registered for its group; a denied topic gets neither.
 */
final class RpcPermissions {

    /**
     * One thing a request asks: {@code kind} {@code resource}, allowed when the policy allows any of {@code anyOf}.
     */
    record Need(ResourceKind kind, Resource resource, List<Action> anyOf) {
    }

    private static final Map<String, Function<Object, List<Need>>> TABLE = Map.ofEntries(
            row(MessagingServiceGrpc.getQueryRouteMethod(), (QueryRouteRequest r) ->
                    List.of(topic(r.getTopic(), Action.PUB, Action.SUB, Action.GET))),
            row(MessagingServiceGrpc.getQueryAssignmentMethod(), (QueryAssignmentRequest r) ->
                    List.of(topic(r.getTopic(), Action.SUB), group(r.getGroup()))),
            row(MessagingServiceGrpc.getSendMessageMethod(), (SendMessageRequest r) -> {
                final List<Need> needs = new ArrayList<>(r.getMessagesCount());
                for (Message m : r.getMessagesList()) {
                    needs.add(topic(m.getTopic(), Action.PUB));
                }
                return needs;
            }),
            row(MessagingServiceGrpc.getRecallMessageMethod(), (RecallMessageRequest r) ->
                    List.of(topic(r.getTopic(), Action.PUB))),
            row(MessagingServiceGrpc.getEndTransactionMethod(), (EndTransactionRequest r) ->
                    List.of(topic(r.getTopic(), Action.PUB))),
            row(MessagingServiceGrpc.getReceiveMessageMethod(), (ReceiveMessageRequest r) ->
                    List.of(topic(r.getMessageQueue().getTopic(), Action.SUB), group(r.getGroup()))),
            row(MessagingServiceGrpc.getAckMessageMethod(), (AckMessageRequest r) ->
                    List.of(topic(r.getTopic(), Action.SUB), group(r.getGroup()))),
            row(MessagingServiceGrpc.getChangeInvisibleDurationMethod(), (ChangeInvisibleDurationRequest r) ->
                    List.of(topic(r.getTopic(), Action.SUB), group(r.getGroup()))),
            row(MessagingServiceGrpc.getForwardMessageToDeadLetterQueueMethod(),
                    (ForwardMessageToDeadLetterQueueRequest r) ->
                            List.of(topic(r.getTopic(), Action.SUB), group(r.getGroup()))),
            row(MessagingServiceGrpc.getPullMessageMethod(), (PullMessageRequest r) ->
                    List.of(topic(r.getMessageQueue().getTopic(), Action.SUB), group(r.getGroup()))),
            row(MessagingServiceGrpc.getUpdateOffsetMethod(), (UpdateOffsetRequest r) ->
                    List.of(topic(r.getMessageQueue().getTopic(), Action.SUB), group(r.getGroup()))),
            row(MessagingServiceGrpc.getGetOffsetMethod(), (GetOffsetRequest r) ->
                    List.of(topic(r.getMessageQueue().getTopic(), Action.SUB), group(r.getGroup()))),
            row(MessagingServiceGrpc.getQueryOffsetMethod(), (QueryOffsetRequest r) ->
                    List.of(topic(r.getMessageQueue().getTopic(), Action.SUB))),
            row(MessagingServiceGrpc.getHeartbeatMethod(), (HeartbeatRequest r) ->
                    r.hasGroup() ? List.of(group(r.getGroup())) : List.of()),
            row(MessagingServiceGrpc.getNotifyClientTerminationMethod(), (NotifyClientTerminationRequest r) ->
                    r.hasGroup() ? List.of(group(r.getGroup())) : List.of()),
            row(MessagingServiceGrpc.getTelemetryMethod(), (TelemetryCommand c) ->
                    c.hasSettings() && c.getSettings().hasSubscription() && c.getSettings().getSubscription().hasGroup()
                            ? List.of(group(c.getSettings().getSubscription().getGroup())) : List.of()));

    private RpcPermissions() {
    }

    /** Whether {@code fullMethodName} has a row. */
    static boolean covers(final String fullMethodName) {
        return TABLE.containsKey(fullMethodName);
    }

    /** What {@code request} of {@code fullMethodName} needs; null when the method has no row (refuse it). */
    static List<Need> needs(final String fullMethodName, final Object request) {
        final Function<Object, List<Need>> row = TABLE.get(fullMethodName);
        return row == null ? null : row.apply(request);
    }

    /** Whether the row of {@code fullMethodName} is QueryRoute's (its any-of order is remembered per connection). */
    static boolean isRouteQuery(final String fullMethodName) {
        return MessagingServiceGrpc.getQueryRouteMethod().getFullMethodName().equals(fullMethodName);
    }

    /**
     * {@code command} without the declared topics {@code allowed} refuses (publishing topics need PUB, subscribed
     * topics SUB); the same object when it declares none of them or all are allowed.
     */
    static TelemetryCommand withoutDenied(final TelemetryCommand command, final Predicate<Need> allowed) {
        if (!command.hasSettings()) {
            return command;
        }
        final Settings s = command.getSettings();
        final Settings.Builder kept = s.toBuilder();
        boolean dropped = false;
        if (s.hasPublishing()) {
            final List<Resource> topics = new ArrayList<>();
            for (Resource t : s.getPublishing().getTopicsList()) {
                if (allowed.test(topic(t, Action.PUB))) {
                    topics.add(t);
                }
            }
            if (topics.size() < s.getPublishing().getTopicsCount()) {
                kept.getPublishingBuilder().clearTopics().addAllTopics(topics);
                dropped = true;
            }
        }
        if (s.hasSubscription()) {
            final List<SubscriptionEntry> entries = new ArrayList<>();
            for (SubscriptionEntry e : s.getSubscription().getSubscriptionsList()) {
                if (allowed.test(topic(e.getTopic(), Action.SUB))) {
                    entries.add(e);
                }
            }
            if (entries.size() < s.getSubscription().getSubscriptionsCount()) {
                kept.getSubscriptionBuilder().clearSubscriptions().addAllSubscriptions(entries);
                dropped = true;
            }
        }
        return dropped ? command.toBuilder().setSettings(kept).build() : command;
    }

    private static Need topic(final Resource r, final Action... anyOf) {
        return new Need(ResourceKind.TOPIC, r, List.of(anyOf));
    }

    private static Need group(final Resource r) {
        return new Need(ResourceKind.GROUP, r, List.of(Action.SUB));
    }

    @SuppressWarnings("unchecked")
    private static <Q> Map.Entry<String, Function<Object, List<Need>>> row(final MethodDescriptor<Q, ?> method,
                                                                          final Function<Q, List<Need>> needs) {
        return Map.entry(method.getFullMethodName(), request -> needs.apply((Q) request));
    }
}
