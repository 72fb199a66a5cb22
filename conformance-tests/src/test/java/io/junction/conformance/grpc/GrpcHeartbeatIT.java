package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.unique;
import static org.assertj.core.api.Assertions.assertThat;

import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.FilterExpression;
import apache.rocketmq.v2.FilterType;
import apache.rocketmq.v2.HeartbeatRequest;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.PullMessageRequest;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Status;
import apache.rocketmq.v2.Subscription;
import apache.rocketmq.v2.SubscriptionEntry;
import apache.rocketmq.v2.TelemetryCommand;
import io.junction.conformance.support.RocketMqAdmin;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.shaded.com.google.protobuf.util.Durations;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A consumer's Heartbeat answers the status of its registration, with unknown groups not created on first use
 * ({@code store.auto-create-groups=false}); groups are made with {@code DefaultMQAdminExt} (what mqadmin runs).
 */
@WithBroker(settings = {"store.auto-create-groups=false"})
class GrpcHeartbeatIT {
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    static RunningBroker broker;
    static DefaultMQAdminExt admin;

    @BeforeAll
    static void start(final RunningBroker running) throws Exception {
        broker = running;
        admin = RocketMqAdmin.started(broker.nameServer());
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.shutdown();
        }
    }

    private static String madeGroup() throws Exception {
        final String group = unique("made");
        final SubscriptionGroupConfig config = new SubscriptionGroupConfig();
        config.setGroupName(group);
        admin.createAndUpdateSubscriptionGroupConfig(broker.nameServer(), config);
        return group;
    }

    private static Resource name(final String name) {
        return Resource.newBuilder().setName(name).build();
    }

    private static HeartbeatRequest heartbeat(final String group) {
        return HeartbeatRequest.newBuilder().setClientType(ClientType.SIMPLE_CONSUMER).setGroup(name(group)).build();
    }

    /** Declares a simple consumer of {@code group} subscribing to {@code topic} with {@code filter}. */
    private static void declare(final GrpcStubs stubs, final String group, final String topic,
                                final FilterExpression filter) throws Exception {
        final TelemetryCommand answer = stubs.telemetry(TelemetryCommand.newBuilder().setSettings(Settings
                .newBuilder().setClientType(ClientType.SIMPLE_CONSUMER).setSubscription(Subscription.newBuilder()
                        .setGroup(name(group)).addSubscriptions(SubscriptionEntry.newBuilder().setTopic(name(topic))
                                .setExpression(filter)))).build(), DEADLINE);
        assertThat(answer.getStatus().getCode()).isEqualTo(Code.OK);
    }

    @Test
    void shouldRefuseAConsumerOfAnUnknownGroup() throws Exception {
        try (GrpcStubs stubs = new GrpcStubs(broker)) {
            assertThat(stubs.blocking().heartbeat(heartbeat(unique("unknown"))).getStatus().getCode())
                    .isEqualTo(Code.CONSUMER_GROUP_NOT_FOUND);
            assertThat(stubs.blocking().heartbeat(heartbeat(madeGroup())).getStatus().getCode()).isEqualTo(Code.OK);
        }
    }

    @Test
    void shouldRefuseAConsumerWhoseSubscriptionFilterDoesNotCompile() throws Exception {
        final String group = madeGroup();
        final String topic = unique("hb-topic");
        try (GrpcStubs bad = new GrpcStubs(broker); GrpcStubs good = new GrpcStubs(broker)) {
            declare(bad, group, topic, FilterExpression.newBuilder().setType(FilterType.SQL)
                    .setExpression("price >>= (").build());
            final Status refused = bad.blocking().heartbeat(heartbeat(group)).getStatus();
            assertThat(refused.getCode()).isEqualTo(Code.ILLEGAL_FILTER_EXPRESSION);
            assertThat(refused.getMessage()).contains(topic);

            declare(good, group, topic, FilterExpression.newBuilder().setType(FilterType.SQL)
                    .setExpression("price > 10").build());
            assertThat(good.blocking().heartbeat(heartbeat(group)).getStatus().getCode()).isEqualTo(Code.OK);
        }
    }

    @Test
    void shouldRefuseOffsetCallsOfAnUnknownGroup() throws Exception {
        final String topic = unique("hb-pull");
        try (GrpcStubs stubs = new GrpcStubs(broker)) {
            // the route query creates the topic (grpc.auto-create-topics)
            assertThat(stubs.blocking().queryRoute(QueryRouteRequest.newBuilder().setTopic(name(topic)).build())
                    .getStatus().getCode()).isEqualTo(Code.OK);
            final PullMessageRequest.Builder pull = PullMessageRequest.newBuilder()
                    .setMessageQueue(MessageQueue.newBuilder().setTopic(name(topic)).setId(0)).setBatchSize(1);
            assertThat(stubs.pull(pull.setGroup(name(unique("unknown"))).build(), DEADLINE).status().getCode())
                    .isEqualTo(Code.CONSUMER_GROUP_NOT_FOUND);
            assertThat(stubs.pull(pull.setGroup(name(madeGroup())).setLongPollingTimeout(
                    Durations.fromMillis(0)).build(), DEADLINE)
                    .status().getCode()).isEqualTo(Code.MESSAGE_NOT_FOUND);
        }
    }
}
