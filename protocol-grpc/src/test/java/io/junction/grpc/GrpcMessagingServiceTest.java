package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import apache.rocketmq.v2.Address;
import apache.rocketmq.v2.AddressScheme;
import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Endpoints;
import apache.rocketmq.v2.FilterExpression;
import apache.rocketmq.v2.FilterType;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.Publishing;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.QueryRouteResponse;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Subscription;
import apache.rocketmq.v2.SubscriptionEntry;
import io.grpc.stub.StreamObserver;
import io.junction.core.Messaging;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import io.junction.spi.cluster.ClusterEndpoints;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GrpcMessagingServiceTest {
    @TempDir
    Path dir;
    private MessageStore store;
    private GrpcMessagingService service;

    @BeforeEach
    void open() {
        store = MessageStore.open(TestStores.small(dir).build());
        service = new GrpcMessagingService(store, GrpcSettings.defaults(), new ClientSessions(), "127.0.0.1", 8081);
    }

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    /** The one response of a unary call, once it is answered. */
    private static final class Answer<T> implements StreamObserver<T> {
        final CompletableFuture<T> value = new CompletableFuture<>();

        @Override
        public void onNext(final T v) {
            value.complete(v);
        }

        @Override
        public void onError(final Throwable t) {
            value.completeExceptionally(t);
        }

        @Override
        public void onCompleted() {
        }
    }

    private static GrpcSettings settings(final boolean autoCreateTopics, final int autoCreateQueues) {
        final GrpcSettings d = GrpcSettings.defaults();
        return new GrpcSettings(d.maxBodySize(), d.validateMessageType(), autoCreateTopics, autoCreateQueues,
                d.receiveBatchSize(), d.longPollingMillis(), d.pushInvisibleMillis(), d.maxDelayMillis(),
                d.minInvisibleMillis(), d.maxInvisibleMillis());
    }

    private static QueryRouteResponse route(final GrpcMessagingService s, final String topic) {
        final Answer<QueryRouteResponse> answer = new Answer<>();
        s.queryRoute(QueryRouteRequest.newBuilder().setTopic(Resource.newBuilder().setName(topic)).build(), answer);
        return answer.value.orTimeout(10, TimeUnit.SECONDS).join();
    }

    /** Polls the store until the group shows up or the deadline passes (its creation runs on the store's thread). */
    private Optional<GroupConfig> awaitGroup(final String name) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (store.groups().get(name).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return store.groups().get(name);
    }

    @Test
    void shouldAnswerProducersWithPublishingSettingsAndExponentialBackoff() {
        final Settings reply = service.serverSettings(Settings.newBuilder().setClientType(ClientType.PRODUCER)
                .setPublishing(Publishing.newBuilder().addTopics(Resource.newBuilder().setName("t"))).build());
        assertThat(reply.hasPublishing()).isTrue();
        assertThat(reply.getPublishing().getMaxBodySize()).isEqualTo(4 * 1024 * 1024);
        assertThat(reply.getPublishing().getValidateMessageType()).isTrue();
        assertThat(reply.getPublishing().getTopicsList()).extracting(Resource::getName).containsExactly("t");
        assertThat(reply.getBackoffPolicy().hasExponentialBackoff()).isTrue();
        assertThat(reply.getBackoffPolicy().getMaxAttempts()).isEqualTo(3);
    }

    @Test
    void shouldAnswerConsumersWithSubscriptionSettingsAndCustomizedBackoff() {
        final Settings reply = service.serverSettings(Settings.newBuilder()
                .setClientType(ClientType.PUSH_CONSUMER)
                .setSubscription(Subscription.newBuilder().setGroup(Resource.newBuilder().setName("g"))
                        .addSubscriptions(SubscriptionEntry.newBuilder().setTopic(Resource.newBuilder().setName("t"))
                                .setExpression(FilterExpression.newBuilder().setType(FilterType.TAG)
                                        .setExpression("*"))))
                .build());
        assertThat(reply.getSubscription().getReceiveBatchSize()).isEqualTo(32);
        assertThat(MessageMapping.millis(reply.getSubscription().getLongPollingTimeout())).isEqualTo(5_000);
        assertThat(reply.getSubscription().getFifo()).isFalse();
        assertThat(reply.getSubscription().getSubscriptionsCount()).isEqualTo(1);
        assertThat(reply.getBackoffPolicy().getMaxAttempts()).isEqualTo(17);
        assertThat(reply.getBackoffPolicy().getCustomizedBackoff().getNextCount()).isEqualTo(18);
        assertThat(store.groups().get("g")).isEmpty(); // a plain group is left to the core to create on first use
    }

    @Test
    void shouldMakeAGroupFifoWhenTheClientAsksForIt() throws Exception {
        final Settings reply = service.serverSettings(Settings.newBuilder()
                .setClientType(ClientType.SIMPLE_CONSUMER)
                .setSubscription(Subscription.newBuilder().setGroup(Resource.newBuilder().setName("ordered"))
                        .setFifo(true))
                .build());
        assertThat(reply.getSubscription().getFifo()).isTrue();
        assertThat(awaitGroup("ordered")).hasValueSatisfying(g -> assertThat(g.fifo()).isTrue());
    }

    @Test
    void shouldListThisNodeOnlyInARouteWhenNoClusterPublishedItsNodes() {
        final MessageQueue q = route(service, "alone").getMessageQueues(0);
        assertThat(q.getBroker().getEndpoints().getAddressesList()).extracting(Address::getHost, Address::getPort)
                .containsExactly(tuple("127.0.0.1", 8081));
    }

    @Test
    void shouldListEveryPublishedNodeAfterThisOneInARoute() {
        final Messaging.KvConfigs kv = store.kvConfigs();
        kv.put(ClusterEndpoints.NAMESPACE, ClusterEndpoints.MEMBERS_KEY, "n1,n2,n3,n4").join();
        kv.put(ClusterEndpoints.NAMESPACE, ClusterEndpoints.key("n1", "grpc"), "127.0.0.2:18081").join();
        kv.put(ClusterEndpoints.NAMESPACE, ClusterEndpoints.key("n2", "grpc"), "127.0.0.1:8081").join(); // this one
        kv.put(ClusterEndpoints.NAMESPACE, ClusterEndpoints.key("n3", "grpc"), "broker-3.example:8081").join();
        // n4 has not published yet
        kv.put(ClusterEndpoints.NAMESPACE, ClusterEndpoints.key("n1", "remoting"), "127.0.0.2:19876").join();

        final MessageQueue q = route(service, "spread").getMessageQueues(0);
        // this node first (pick_first in the client), each node once, a domain name left out of an IPv4 list
        assertThat(q.getBroker().getEndpoints().getAddressesList()).extracting(a -> a.getHost() + ":" + a.getPort())
                .containsExactly("127.0.0.1:8081", "127.0.0.2:18081");
        // a client that reached this node by a domain name keeps it alone: its SDK refuses several such addresses
        final Answer<QueryRouteResponse> answer = new Answer<>();
        service.queryRoute(QueryRouteRequest.newBuilder().setTopic(Resource.newBuilder().setName("spread"))
                .setEndpoints(Endpoints.newBuilder().setScheme(AddressScheme.DOMAIN_NAME)
                        .addAddresses(Address.newBuilder().setHost("broker-2.example").setPort(8081))).build(), answer);
        assertThat(answer.value.orTimeout(10, TimeUnit.SECONDS).join().getMessageQueues(0).getBroker().getEndpoints()
                .getAddressesList()).extracting(Address::getHost).containsExactly("broker-2.example");
    }

    @Test
    void shouldCreateAnUnknownTopicOnARouteQueryAsMixedWithTheConfiguredQueues() {
        final GrpcMessagingService threeQueues = new GrpcMessagingService(store, settings(true, 3),
                new ClientSessions(), "127.0.0.1", 8081);
        final QueryRouteResponse r = route(threeQueues, "fresh");
        assertThat(r.getStatus().getCode()).isEqualTo(Code.OK);
        assertThat(r.getMessageQueuesList()).extracting(MessageQueue::getId).containsExactly(0, 1, 2);
        assertThat(store.topics().get("fresh")).hasValueSatisfying(t -> {
            assertThat(t.type()).isEqualTo(TopicType.MIXED);
            assertThat(t.queueCount()).isEqualTo(3);
        });
        // a system topic's name is never created on demand
        assertThat(route(threeQueues, "TBW102").getStatus().getCode()).isEqualTo(Code.BAD_REQUEST);
        assertThat(store.topics().get("TBW102")).isEmpty();
    }

    @Test
    void shouldAnswerTopicNotFoundWhenAutoCreationIsOff() {
        final GrpcMessagingService strict = new GrpcMessagingService(store, settings(false, 4), new ClientSessions(),
                "127.0.0.1", 8081);
        assertThat(route(strict, "unknown").getStatus().getCode()).isEqualTo(Code.TOPIC_NOT_FOUND);
        assertThat(store.topics().get("unknown")).isEmpty();
        store.topics().createOrUpdate(TopicConfig.of("known", 2)).join();
        assertThat(route(strict, "known").getMessageQueuesCount()).isEqualTo(2);
    }

    @Test
    void shouldListAScaledInTopicsClosedQueuesAsReadOnly() {
        // A proxy puts the write-queue count on the route of a topic it scaled in; the store serves it the same way.
        store.topics().createOrUpdate(new TopicConfig("shrunk", 3, TopicType.NORMAL, TopicConfig.PERM_READ_WRITE,
                java.util.Map.of(TopicConfig.WRITE_QUEUES, "1"))).join();
        assertThat(route(service, "shrunk").getMessageQueuesList()).extracting(MessageQueue::getId,
                MessageQueue::getPermission).containsExactly(tuple(0, apache.rocketmq.v2.Permission.READ_WRITE),
                tuple(1, apache.rocketmq.v2.Permission.READ), tuple(2, apache.rocketmq.v2.Permission.READ));
    }

    @Test
    void shouldMapCoreFailuresOntoProtoCodes() {
        assertThat(Statuses.fromFailure(new CompletionException(new StoreException(StoreError.TOPIC_NOT_FOUND,
                "no topic")), Code.BAD_REQUEST).getCode()).isEqualTo(Code.TOPIC_NOT_FOUND);
        assertThat(Statuses.fromFailure(new StoreException(StoreError.GROUP_NOT_FOUND, "x"), Code.BAD_REQUEST)
                .getCode()).isEqualTo(Code.CONSUMER_GROUP_NOT_FOUND);
        assertThat(Statuses.fromFailure(new StoreException(StoreError.ILLEGAL_ARGUMENT, "bad handle"),
                Code.INVALID_RECEIPT_HANDLE).getCode()).isEqualTo(Code.INVALID_RECEIPT_HANDLE);
        assertThat(Statuses.fromFailure(new StoreException(StoreError.MESSAGE_TOO_LARGE, "x"), Code.BAD_REQUEST)
                .getCode()).isEqualTo(Code.MESSAGE_BODY_TOO_LARGE);
        assertThat(Statuses.fromFailure(new IllegalStateException("boom"), Code.BAD_REQUEST).getCode())
                .isEqualTo(Code.INTERNAL_SERVER_ERROR);
    }

    @Test
    void shouldRefuseMalformedFilterExpressions() {
        final Statuses.Refusal r = org.assertj.core.api.Assertions.catchThrowableOfType(Statuses.Refusal.class,
                () -> ReceiveActivity.filter(FilterExpression.newBuilder().setType(FilterType.SQL)
                        .setExpression("a >>= (").build()));
        assertThat(r.status().getCode()).isEqualTo(Code.ILLEGAL_FILTER_EXPRESSION);
    }
}
