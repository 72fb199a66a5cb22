package io.junction.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import apache.rocketmq.v2.ClientType;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.FilterExpression;
import apache.rocketmq.v2.FilterType;
import apache.rocketmq.v2.Publishing;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.Subscription;
import apache.rocketmq.v2.SubscriptionEntry;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class GrpcMessagingServiceTest {
    private final FakeMessaging fake = new FakeMessaging();
    private final GrpcMessagingService service = new GrpcMessagingService(fake.messaging(), GrpcSettings.defaults(),
            new ClientSessions(), "127.0.0.1", 8081);

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
        assertThat(fake.groups).isEmpty(); // a plain group is left to the core to create on first use
    }

    @Test
    void shouldMakeAGroupFifoWhenTheClientAsksForIt() {
        final Settings reply = service.serverSettings(Settings.newBuilder()
                .setClientType(ClientType.SIMPLE_CONSUMER)
                .setSubscription(Subscription.newBuilder().setGroup(Resource.newBuilder().setName("ordered"))
                        .setFifo(true))
                .build());
        assertThat(reply.getSubscription().getFifo()).isTrue();
        assertThat(fake.groups.get("ordered").fifo()).isTrue();
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
