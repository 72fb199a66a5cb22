package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import apache.rocketmq.v2.AckMessageRequest;
import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.HeartbeatRequest;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.MessagingServiceGrpc;
import apache.rocketmq.v2.Publishing;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.ReceiveMessageRequest;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Status;
import apache.rocketmq.v2.Subscription;
import apache.rocketmq.v2.SubscriptionEntry;
import apache.rocketmq.v2.TelemetryCommand;
import apache.rocketmq.v2.ThreadStackTrace;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.tenancy.Action;
import io.junction.tenancy.ResourceKind;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RpcPermissionsTest {
    private static Resource r(final String name) {
        return Resource.newBuilder().setResourceNamespace("acme").setName(name).build();
    }

    private static String name(final MethodDescriptor<?, ?> m) {
        return m.getFullMethodName();
    }

    @Test
    void shouldHaveARowForEveryMethodOfTheService(@TempDir final Path dir) throws Exception {
        final List<String> methods = MessagingServiceGrpc.getServiceDescriptor().getMethods().stream()
                .map(MethodDescriptor::getFullMethodName).toList();
        assertThat(methods).hasSize(16);
        assertThat(methods).allSatisfy(m -> assertThat(RpcPermissions.covers(m)).as(m).isTrue());
        // and the service the front-end serves declares no method beyond them
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            final List<String> served = new GrpcMessagingService(store, GrpcSettings.defaults(), new ClientSessions(),
                    "127.0.0.1", 8081).bindService().getMethods().stream()
                    .map(ServerMethodDefinition::getMethodDescriptor).map(MethodDescriptor::getFullMethodName)
                    .toList();
            assertThat(served).containsExactlyInAnyOrderElementsOf(methods);
        }
        assertThat(RpcPermissions.needs("apache.rocketmq.v2.MessagingService/SomethingNew", null)).isNull();
    }

    @Test
    void shouldAnswerEveryMethodsRefusalInItsOwnResponseType() {
        for (MethodDescriptor<?, ?> m : MessagingServiceGrpc.getServiceDescriptor().getMethods()) {
            final Object response = RefusalResponses.of(m, Code.FORBIDDEN, "no");
            assertThat(response).as(m.getFullMethodName()).isInstanceOf(com.google.protobuf.Message.class);
            final com.google.protobuf.Message message = (com.google.protobuf.Message) response;
            final Status status = (Status) message.getField(message.getDescriptorForType().findFieldByName("status"));
            assertThat(status.getCode()).as(m.getFullMethodName()).isEqualTo(Code.FORBIDDEN);
            assertThat(status.getMessage()).isEqualTo("no");
        }
    }

    @Test
    void shouldLetWhoeverPublishesSubscribesOrGetsQueryARoute() {
        assertThat(RpcPermissions.needs(name(MessagingServiceGrpc.getQueryRouteMethod()),
                QueryRouteRequest.newBuilder().setTopic(r("t")).build()))
                .containsExactly(new RpcPermissions.Need(ResourceKind.TOPIC, r("t"),
                        List.of(Action.PUB, Action.SUB, Action.GET)));
    }

    @Test
    void shouldNeedPublishOnTheTopicOfEveryMessageSent() {
        assertThat(RpcPermissions.needs(name(MessagingServiceGrpc.getSendMessageMethod()),
                SendMessageRequest.newBuilder().addMessages(Message.newBuilder().setTopic(r("a")))
                        .addMessages(Message.newBuilder().setTopic(r("b"))).build()))
                .extracting(n -> n.resource().getName() + ":" + n.anyOf()).containsExactly("a:[PUB]", "b:[PUB]");
    }

    @Test
    void shouldNeedSubscribeOnTopicAndGroupToConsume() {
        final List<RpcPermissions.Need> receive = RpcPermissions.needs(
                name(MessagingServiceGrpc.getReceiveMessageMethod()), ReceiveMessageRequest.newBuilder()
                        .setGroup(r("g")).setMessageQueue(MessageQueue.newBuilder().setTopic(r("t"))).build());
        final List<RpcPermissions.Need> ack = RpcPermissions.needs(name(MessagingServiceGrpc.getAckMessageMethod()),
                AckMessageRequest.newBuilder().setGroup(r("g")).setTopic(r("t")).build());
        for (List<RpcPermissions.Need> needs : List.of(receive, ack)) {
            assertThat(needs).containsExactly(
                    new RpcPermissions.Need(ResourceKind.TOPIC, r("t"), List.of(Action.SUB)),
                    new RpcPermissions.Need(ResourceKind.GROUP, r("g"), List.of(Action.SUB)));
        }
    }

    @Test
    void shouldNeedTheGroupOfTelemetrySettingsAndFilterTheirTopics() {
        final TelemetryCommand producer = TelemetryCommand.newBuilder().setSettings(Settings.newBuilder()
                .setClientType(ClientType.PRODUCER)
                .setPublishing(Publishing.newBuilder().addTopics(r("a")).addTopics(r("b")))).build();
        assertThat(RpcPermissions.needs(name(MessagingServiceGrpc.getTelemetryMethod()), producer)).isEmpty();
        final TelemetryCommand keptA = RpcPermissions.withoutDenied(producer,
                n -> n.anyOf().equals(List.of(Action.PUB)) && n.resource().getName().equals("a"));
        assertThat(keptA.getSettings().getPublishing().getTopicsList()).containsExactly(r("a"));
        assertThat(RpcPermissions.withoutDenied(producer, n -> true)).isSameAs(producer);

        final TelemetryCommand consumer = TelemetryCommand.newBuilder().setSettings(Settings.newBuilder()
                .setClientType(ClientType.SIMPLE_CONSUMER)
                .setSubscription(Subscription.newBuilder().setGroup(r("g"))
                        .addSubscriptions(SubscriptionEntry.newBuilder().setTopic(r("t")))
                        .addSubscriptions(SubscriptionEntry.newBuilder().setTopic(r("u"))))).build();
        assertThat(RpcPermissions.needs(name(MessagingServiceGrpc.getTelemetryMethod()), consumer))
                .containsExactly(new RpcPermissions.Need(ResourceKind.GROUP, r("g"), List.of(Action.SUB)));
        final TelemetryCommand keptU = RpcPermissions.withoutDenied(consumer,
                n -> n.anyOf().equals(List.of(Action.SUB)) && n.resource().getName().equals("u"));
        assertThat(keptU.getSettings().getSubscription().getSubscriptionsList())
                .extracting(e -> e.getTopic().getName()).containsExactly("u");
        assertThat(keptU.getSettings().getSubscription().getGroup()).isEqualTo(r("g"));
        assertThat(RpcPermissions.needs(name(MessagingServiceGrpc.getTelemetryMethod()),
                TelemetryCommand.newBuilder().setThreadStackTrace(ThreadStackTrace.getDefaultInstance()).build()))
                .isEmpty();
    }

    @Test
    void shouldAskNothingOfAProducersHeartbeatButTheGroupOfAConsumers() {
        assertThat(RpcPermissions.needs(name(MessagingServiceGrpc.getHeartbeatMethod()),
                HeartbeatRequest.newBuilder().setClientType(ClientType.PRODUCER).build())).isEmpty();
        assertThat(RpcPermissions.needs(name(MessagingServiceGrpc.getHeartbeatMethod()),
                HeartbeatRequest.newBuilder().setGroup(r("g")).build()))
                .containsExactly(new RpcPermissions.Need(ResourceKind.GROUP, r("g"), List.of(Action.SUB)));
    }
}
