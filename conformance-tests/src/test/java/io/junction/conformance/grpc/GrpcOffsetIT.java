package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.PROVIDER;
import static io.junction.conformance.grpc.GrpcClients.unique;
import static io.junction.conformance.grpc.GrpcClients.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.FilterExpression;
import apache.rocketmq.v2.FilterType;
import apache.rocketmq.v2.GetOffsetRequest;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageQueue;
import apache.rocketmq.v2.PullMessageRequest;
import apache.rocketmq.v2.PullMessageResponse.ContentCase;
import apache.rocketmq.v2.QueryOffsetPolicy;
import apache.rocketmq.v2.QueryOffsetRequest;
import apache.rocketmq.v2.QueryOffsetResponse;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.UpdateOffsetRequest;
import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.shaded.com.google.protobuf.util.Durations;
import org.apache.rocketmq.shaded.com.google.protobuf.util.Timestamps;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Offset consumption of {@code MessagingService} (PullMessage, UpdateOffset, GetOffset, QueryOffset) through the
 * generated stubs over a real channel; messages come from the 5.x Java client's producer. No released Java SDK has a
 * pull consumer that would make these calls (rocketmq-client-java 5.0.8 to 5.2.0). Topics get one queue, so every
 * message lands in queue 0.
 */
@WithBroker(settings = {"grpc.auto-create-queues=1"})
class GrpcOffsetIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    static RunningBroker broker;
    GrpcClients clients;
    GrpcStubs stubs;

    @BeforeAll
    static void broker(final RunningBroker running) {
        broker = running;
    }

    @BeforeEach
    void open() {
        clients = new GrpcClients(broker);
        stubs = new GrpcStubs(broker);
    }

    @AfterEach
    void close() throws Exception {
        clients.close();
        stubs.close();
    }

    private static Resource name(final String name) {
        return Resource.newBuilder().setName(name).build();
    }

    private static MessageQueue queue(final String topic, final int id) {
        return MessageQueue.newBuilder().setTopic(name(topic)).setId(id).build();
    }

    private static PullMessageRequest.Builder pull(final String group, final String topic, final long offset) {
        return PullMessageRequest.newBuilder().setGroup(name(group)).setMessageQueue(queue(topic, 0))
                .setOffset(offset).setBatchSize(32).setLongPollingTimeout(Durations.fromMillis(0));
    }

    private long end(final String topic) {
        return stubs.blocking().queryOffset(QueryOffsetRequest.newBuilder().setMessageQueue(queue(topic, 0))
                .setQueryOffsetPolicy(QueryOffsetPolicy.END).build()).getOffset();
    }

    /** Sends {@code body-i} for i in [from, to), tag A for even i and B for odd, property n = i; waits until stored. */
    private void send(final Producer producer, final String topic, final int from, final int to) throws Exception {
        for (int i = from; i < to; i++) {
            producer.send(PROVIDER.newMessageBuilder().setTopic(topic).setTag(i % 2 == 0 ? "A" : "B")
                    .addProperty("n", Integer.toString(i)).setBody(utf8("body-" + i)).build());
        }
        // a queue entry is written just after the send is acknowledged
        await().atMost(WAIT).until(() -> end(topic) == to);
    }

    @Test
    void shouldPullByOffsetStreamingStatusMessagesThenTheNextOffset() throws Exception {
        final String topic = unique("grpc-pull");
        final String group = unique("grpc-pull-g");
        send(clients.producer(topic), topic, 0, 10);

        final GrpcStubs.Pulled all = stubs.pull(pull(group, topic, 0).build(), WAIT);
        assertThat(all.status().getCode()).isEqualTo(Code.OK);
        assertThat(all.bodies()).containsExactly("body-0", "body-1", "body-2", "body-3", "body-4", "body-5",
                "body-6", "body-7", "body-8", "body-9");
        assertThat(all.nextOffset()).isEqualTo(10);
        assertThat(all.order().get(0)).isEqualTo(ContentCase.STATUS);
        assertThat(all.order().get(all.order().size() - 1)).isEqualTo(ContentCase.NEXT_OFFSET);
        final Message third = all.messages().get(2);
        assertThat(third.getTopic().getName()).isEqualTo(topic);
        assertThat(third.getSystemProperties().getQueueId()).isZero();
        assertThat(third.getSystemProperties().getQueueOffset()).isEqualTo(2);
        assertThat(third.getSystemProperties().getTag()).isEqualTo("A");
        assertThat(third.getUserPropertiesMap()).containsEntry("n", "2");
        assertThat(third.getSystemProperties().hasReceiptHandle()).isFalse();

        final GrpcStubs.Pulled page = stubs.pull(pull(group, topic, 4).setBatchSize(3).build(), WAIT);
        assertThat(page.bodies()).containsExactly("body-4", "body-5", "body-6");
        assertThat(page.nextOffset()).isEqualTo(7);

        final GrpcStubs.Pulled atEnd = stubs.pull(pull(group, topic, 10).build(), WAIT);
        assertThat(atEnd.status().getCode()).isEqualTo(Code.MESSAGE_NOT_FOUND);
        assertThat(atEnd.messages()).isEmpty();
        assertThat(atEnd.nextOffset()).isEqualTo(10);
    }

    @Test
    void shouldFilterPulledMessagesByTagAndSql() throws Exception {
        final String topic = unique("grpc-pull-filter");
        final String group = unique("grpc-pull-g");
        send(clients.producer(topic), topic, 0, 10);

        final GrpcStubs.Pulled tagged = stubs.pull(pull(group, topic, 0).setFilterExpression(FilterExpression
                .newBuilder().setType(FilterType.TAG).setExpression("A")).build(), WAIT);
        assertThat(tagged.bodies()).containsExactly("body-0", "body-2", "body-4", "body-6", "body-8");
        assertThat(tagged.nextOffset()).isEqualTo(10);

        final GrpcStubs.Pulled sql = stubs.pull(pull(group, topic, 0).setFilterExpression(FilterExpression
                .newBuilder().setType(FilterType.SQL).setExpression("n >= 7 AND TAGS = 'B'")).build(), WAIT);
        assertThat(sql.bodies()).containsExactly("body-7", "body-9");

        // nothing matches: the next offset moves past what the filter skipped
        final GrpcStubs.Pulled none = stubs.pull(pull(group, topic, 0).setFilterExpression(FilterExpression
                .newBuilder().setType(FilterType.TAG).setExpression("C")).build(), WAIT);
        assertThat(none.status().getCode()).isEqualTo(Code.MESSAGE_NOT_FOUND);
        assertThat(none.nextOffset()).isEqualTo(10);
    }

    @Test
    void shouldLongPollUntilAMatchingMessageArrives() throws Exception {
        final String topic = unique("grpc-pull-wait");
        final String group = unique("grpc-pull-g");
        final Producer producer = clients.producer(topic);
        send(producer, topic, 0, 1);

        // waits past a message the filter skips (offset 1), answers with the matching one (offset 2)
        final long started = System.nanoTime();
        final CompletableFuture<GrpcStubs.Pulled> waiting = CompletableFuture.supplyAsync(() -> stubs.pull(
                pull(group, topic, 1).setLongPollingTimeout(Durations.fromSeconds(25))
                        .setFilterExpression(FilterExpression.newBuilder().setType(FilterType.TAG).setExpression("A"))
                        .build(), Duration.ofSeconds(40)));
        send(producer, topic, 1, 2); // tag B
        assertThat(waiting).isNotDone();
        send(producer, topic, 2, 3); // tag A
        final GrpcStubs.Pulled got = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        final Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(got.status().getCode()).isEqualTo(Code.OK);
        assertThat(got.bodies()).containsExactly("body-2");
        assertThat(got.nextOffset()).isEqualTo(3);
        assertThat(took).as("answered on arrival, not at the 25 s timeout").isLessThan(Duration.ofSeconds(20));

        // nothing arrives: the answer comes after about the long-polling timeout, not before
        final long quiet = System.nanoTime();
        final GrpcStubs.Pulled empty = stubs.pull(pull(group, topic, 3).setLongPollingTimeout(
                Durations.fromMillis(1500)).build(), WAIT);
        final Duration waited = Duration.ofNanos(System.nanoTime() - quiet);
        assertThat(empty.status().getCode()).isEqualTo(Code.MESSAGE_NOT_FOUND);
        assertThat(empty.nextOffset()).isEqualTo(3);
        assertThat(waited).isBetween(Duration.ofMillis(1400), Duration.ofSeconds(15));
    }

    @Test
    void shouldCommitAndReadAGroupsOffset() throws Exception {
        final String topic = unique("grpc-offset");
        final String group = unique("grpc-offset-g");
        send(clients.producer(topic), topic, 0, 5);
        final GetOffsetRequest get = GetOffsetRequest.newBuilder().setGroup(name(group))
                .setMessageQueue(queue(topic, 0)).build();

        assertThat(stubs.blocking().getOffset(get).getStatus().getCode()).isEqualTo(Code.OFFSET_NOT_FOUND);
        assertThat(stubs.blocking().updateOffset(UpdateOffsetRequest.newBuilder().setGroup(name(group))
                .setMessageQueue(queue(topic, 0)).setOffset(3).build()).getStatus().getCode()).isEqualTo(Code.OK);
        assertThat(stubs.blocking().getOffset(get).getOffset()).isEqualTo(3);
        // the end itself may be committed (everything consumed), nothing past it
        assertThat(stubs.blocking().updateOffset(UpdateOffsetRequest.newBuilder().setGroup(name(group))
                .setMessageQueue(queue(topic, 0)).setOffset(5).build()).getStatus().getCode()).isEqualTo(Code.OK);
        assertThat(stubs.blocking().updateOffset(UpdateOffsetRequest.newBuilder().setGroup(name(group))
                .setMessageQueue(queue(topic, 0)).setOffset(6).build()).getStatus().getCode())
                .isEqualTo(Code.ILLEGAL_OFFSET);
        assertThat(stubs.blocking().updateOffset(UpdateOffsetRequest.newBuilder().setGroup(name(group))
                .setMessageQueue(queue(topic, 0)).setOffset(-1).build()).getStatus().getCode())
                .isEqualTo(Code.ILLEGAL_OFFSET);
        assertThat(stubs.blocking().getOffset(get).getOffset()).isEqualTo(5);
        // another group's position is its own
        assertThat(stubs.blocking().getOffset(get.toBuilder().setGroup(name(unique("other"))).build())
                .getStatus().getCode()).isEqualTo(Code.OFFSET_NOT_FOUND);
    }

    @Test
    void shouldQueryTheFirstTheEndAndTheOffsetAtATime() throws Exception {
        final String topic = unique("grpc-query");
        final Producer producer = clients.producer(topic);
        send(producer, topic, 0, 3);
        final long lastStored = Timestamps.toMillis(stubs.pull(pull("q", topic, 2).build(), WAIT).messages().get(0)
                .getSystemProperties().getStoreTimestamp());
        await().atMost(WAIT).until(() -> System.currentTimeMillis() > lastStored + 1);
        send(producer, topic, 3, 6);
        final long secondBatch = Timestamps.toMillis(stubs.pull(pull("q", topic, 3).build(), WAIT).messages().get(0)
                .getSystemProperties().getStoreTimestamp());

        assertThat(query(topic, QueryOffsetPolicy.BEGINNING, null).getOffset()).isZero();
        assertThat(query(topic, QueryOffsetPolicy.END, null).getOffset()).isEqualTo(6);
        assertThat(query(topic, QueryOffsetPolicy.TIMESTAMP, secondBatch).getOffset()).isEqualTo(3);
        assertThat(query(topic, QueryOffsetPolicy.TIMESTAMP, 0L).getOffset()).isZero();
        assertThat(query(topic, QueryOffsetPolicy.TIMESTAMP, System.currentTimeMillis() + 3_600_000).getOffset())
                .isEqualTo(6);
        assertThat(query(topic, QueryOffsetPolicy.TIMESTAMP, null).getStatus().getCode())
                .isEqualTo(Code.BAD_REQUEST);
    }

    private QueryOffsetResponse query(final String topic, final QueryOffsetPolicy policy, final Long at) {
        final QueryOffsetRequest.Builder b = QueryOffsetRequest.newBuilder().setMessageQueue(queue(topic, 0))
                .setQueryOffsetPolicy(policy);
        if (at != null) {
            b.setTimestamp(Timestamps.fromMillis(at));
        }
        return stubs.blocking().queryOffset(b.build());
    }

    @Test
    void shouldRefuseBadInputWithTheProtosCodes() throws Exception {
        final String topic = unique("grpc-pull-bad");
        final String group = unique("grpc-pull-g");
        send(clients.producer(topic), topic, 0, 2);
        final String missing = unique("no-such-topic");

        assertThat(stubs.pull(pull(group, missing, 0).build(), WAIT).status().getCode())
                .isEqualTo(Code.TOPIC_NOT_FOUND);
        assertThat(stubs.blocking().queryOffset(QueryOffsetRequest.newBuilder().setMessageQueue(queue(missing, 0))
                .build()).getStatus().getCode()).isEqualTo(Code.TOPIC_NOT_FOUND);
        assertThat(stubs.blocking().getOffset(GetOffsetRequest.newBuilder().setGroup(name(group))
                .setMessageQueue(queue(missing, 0)).build()).getStatus().getCode()).isEqualTo(Code.TOPIC_NOT_FOUND);
        assertThat(stubs.pull(pull(group, topic, 0).setMessageQueue(queue(topic, 1)).build(), WAIT).status()
                .getCode()).isEqualTo(Code.NOT_FOUND);
        assertThat(stubs.blocking().updateOffset(UpdateOffsetRequest.newBuilder().setGroup(name(group))
                .setMessageQueue(queue(topic, -1)).setOffset(0).build()).getStatus().getCode())
                .isEqualTo(Code.NOT_FOUND);
        assertThat(stubs.pull(pull(group, topic, -1).build(), WAIT).status().getCode())
                .isEqualTo(Code.ILLEGAL_OFFSET);
        assertThat(stubs.pull(pull("", topic, 0).build(), WAIT).status().getCode())
                .isEqualTo(Code.ILLEGAL_CONSUMER_GROUP);
        assertThat(stubs.pull(pull(group, topic, 0).setBatchSize(0).build(), WAIT).status().getCode())
                .isEqualTo(Code.BAD_REQUEST);
        assertThat(stubs.pull(pull(group, topic, 0).setLongPollingTimeout(Durations.fromMillis(-1)).build(), WAIT)
                .status().getCode()).isEqualTo(Code.ILLEGAL_POLLING_TIME);
        final GrpcStubs.Pulled badSql = stubs.pull(pull(group, topic, 0).setFilterExpression(FilterExpression
                .newBuilder().setType(FilterType.SQL).setExpression("n >>= (")).build(), WAIT);
        assertThat(badSql.status().getCode()).isEqualTo(Code.ILLEGAL_FILTER_EXPRESSION);
        assertThat(badSql.nextOffset()).isNull();

        // past the end: refused, with where to go on from
        final GrpcStubs.Pulled past = stubs.pull(pull(group, topic, 7).build(), WAIT);
        assertThat(past.status().getCode()).isEqualTo(Code.ILLEGAL_OFFSET);
        assertThat(past.nextOffset()).isEqualTo(2);
        assertThat(List.of(past.order().get(0))).containsExactly(ContentCase.STATUS);
    }
}
