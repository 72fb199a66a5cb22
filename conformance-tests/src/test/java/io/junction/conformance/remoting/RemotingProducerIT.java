package io.junction.conformance.remoting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.conformance.support.RunningBroker;
import io.junction.conformance.support.WithBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** DefaultMQProducer against the broker jar: every send style, and what a consumer then reads. */
@WithBroker
class RemotingProducerIT {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static RunningBroker broker;
    private static DefaultMQProducer producer;

    @BeforeAll
    static void broker(final RunningBroker running) throws Exception {
        broker = running;
        producer = Clients.producer(broker);
    }

    @AfterAll
    static void stop() {
        if (producer != null) {
            producer.shutdown();
        }
    }

    @Test
    void shouldSendSynchronouslyToAnAutoCreatedTopicWithTagsKeysAndProperties() throws Exception {
        final String topic = Names.unique("sync");
        final Message msg = new Message(topic, "TagA", "order-1 order-2", "hello".getBytes(StandardCharsets.UTF_8));
        msg.putUserProperty("color", "blue");
        msg.setFlag(7);

        final SendResult result = producer.send(msg);

        assertThat(result.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
        assertThat(result.getMsgId().length()).as("client unique id (IPv4 or IPv6 client)").isIn(32, 56);
        assertThat(result.getOffsetMsgId()).hasSize(32).isNotEqualTo(result.getMsgId());
        assertThat(result.getMessageQueue().getTopic()).isEqualTo(topic);
        assertThat(result.getQueueOffset()).isZero();

        final List<MessageExt> got = Clients.drain(broker, topic, 1, DEADLINE);
        assertThat(got).hasSize(1);
        final MessageExt m = got.get(0);
        assertThat(new String(m.getBody(), StandardCharsets.UTF_8)).isEqualTo("hello");
        assertThat(m.getTags()).isEqualTo("TagA");
        assertThat(m.getKeys()).isEqualTo("order-1 order-2");
        assertThat(m.getUserProperty("color")).isEqualTo("blue");
        assertThat(m.getFlag()).isEqualTo(7);
        assertThat(m.getMsgId()).isEqualTo(result.getMsgId());
        assertThat(m.getQueueId()).isEqualTo(result.getMessageQueue().getQueueId());
        assertThat(m.getBornTimestamp()).isPositive();
        assertThat(m.getStoreTimestamp()).isGreaterThanOrEqualTo(m.getBornTimestamp() - 1000);
    }

    @Test
    void shouldSendAsynchronouslyAndOneway() throws Exception {
        final String topic = Names.unique("async");
        final CompletableFuture<SendResult> done = new CompletableFuture<>();
        producer.send(new Message(topic, "a".getBytes(StandardCharsets.UTF_8)), new SendCallback() {
            @Override
            public void onSuccess(final SendResult sendResult) {
                done.complete(sendResult);
            }

            @Override
            public void onException(final Throwable e) {
                done.completeExceptionally(e);
            }
        });
        assertThat(done.get(10, TimeUnit.SECONDS).getSendStatus()).isEqualTo(SendStatus.SEND_OK);
        producer.sendOneway(new Message(topic, "b".getBytes(StandardCharsets.UTF_8)));

        final List<MessageExt> got = Clients.drain(broker, topic, 2, DEADLINE);
        assertThat(got).extracting(m -> new String(m.getBody(), StandardCharsets.UTF_8))
                .containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void shouldSendABatchToOneQueueInOrder() throws Exception {
        final String topic = Names.unique("batch");
        producer.send(new Message(topic, "warm-up".getBytes(StandardCharsets.UTF_8))); // creates the topic
        final List<Message> batch = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            final Message m = new Message(topic, "B", ("m" + i).getBytes(StandardCharsets.UTF_8));
            m.putUserProperty("i", Integer.toString(i));
            batch.add(m);
        }

        final SendResult result = producer.send(batch);

        assertThat(result.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
        assertThat(result.getMsgId().split(",")).hasSize(20);
        final List<MessageExt> got = Clients.drain(broker, topic, 21, DEADLINE);
        final List<MessageExt> batchGot = got.stream().filter(m -> "B".equals(m.getTags())).toList();
        assertThat(batchGot).hasSize(20);
        assertThat(batchGot).allMatch(m -> m.getQueueId() == result.getMessageQueue().getQueueId());
        assertThat(batchGot).extracting(m -> m.getUserProperty("i"))
                .containsExactly(java.util.stream.IntStream.range(0, 20).mapToObj(Integer::toString)
                        .toArray(String[]::new));
        assertThat(batchGot).extracting(MessageExt::getMsgId)
                .containsExactlyElementsOf(Arrays.asList(result.getMsgId().split(",")));
    }

    @Test
    void shouldSendToTheQueueASelectorPicks() throws Exception {
        final String topic = Names.unique("selector");
        producer.send(new Message(topic, "warm-up".getBytes(StandardCharsets.UTF_8)));
        long previous = -1;
        for (int i = 0; i < 3; i++) {
            final SendResult r = producer.send(new Message(topic, ("s" + i).getBytes(StandardCharsets.UTF_8)),
                    (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), 2);
            assertThat(r.getMessageQueue().getQueueId()).isEqualTo(2);
            if (previous >= 0) {
                assertThat(r.getQueueOffset()).isEqualTo(previous + 1);
            }
            previous = r.getQueueOffset();
        }
    }

    @Test
    void shouldStoreCompressedBodiesThatConsumersInflate() throws Exception {
        final String topic = Names.unique("zip");
        final byte[] body = "0123456789abcdef".repeat(1024).getBytes(StandardCharsets.UTF_8); // 16 KiB: compressed

        assertThat(producer.send(new Message(topic, body)).getSendStatus()).isEqualTo(SendStatus.SEND_OK);

        final List<MessageExt> got = Clients.drain(broker, topic, 1, DEADLINE);
        assertThat(got).hasSize(1);
        assertThat(got.get(0).getBody()).isEqualTo(body);
    }

    @Test
    void shouldRefuseAMessageAboveTheMaximumSizeWithMessageIllegal() throws Exception {
        final DefaultMQProducer big = Clients.producer(broker);
        try {
            big.setMaxMessageSize(16 << 20); // let the client send it: the broker must refuse
            big.setSendMsgTimeout(30_000); // 5 MiB on a busy machine can take longer than the usual 5 s
            big.setCompressMsgBodyOverHowmuch(Integer.MAX_VALUE);
            big.setRetryTimesWhenSendFailed(0);
            final byte[] body = new byte[5 << 20];
            new java.util.Random(1).nextBytes(body);

            assertThatThrownBy(() -> big.send(new Message(Names.unique("big"), body)))
                    .isInstanceOf(MQBrokerException.class)
                    .satisfies(e -> assertThat(((MQBrokerException) e).getResponseCode()).isEqualTo(13))
                    .hasMessageContaining("exceeds the maximum");
        } finally {
            big.shutdown();
        }
    }

    @Test
    void shouldRefuseAWholeBatchWithAMemberAboveTheMaximumSizeAndStoreNoneOfIt() throws Exception {
        final String topic = Names.unique("bigbatch");
        producer.send(new Message(topic, "warm-up".getBytes(StandardCharsets.UTF_8))); // creates the topic
        final DefaultMQProducer big = Clients.producer(broker);
        try {
            big.setMaxMessageSize(16 << 20); // let the client send it: the broker must refuse
            big.setSendMsgTimeout(30_000); // 5 MiB on a busy machine can take longer than the usual 5 s
            big.setRetryTimesWhenSendFailed(0);
            final byte[] large = new byte[5 << 20];
            new java.util.Random(2).nextBytes(large);
            final List<Message> batch = List.of(new Message(topic, "B", "small-0".getBytes(StandardCharsets.UTF_8)),
                    new Message(topic, "B", large), new Message(topic, "B", "small-2".getBytes(StandardCharsets.UTF_8)));

            assertThatThrownBy(() -> big.send(batch))
                    .isInstanceOf(MQBrokerException.class)
                    .satisfies(e -> assertThat(((MQBrokerException) e).getResponseCode()).isEqualTo(13))
                    .hasMessageContaining("batch member 1").hasMessageContaining("exceeds the maximum");
        } finally {
            big.shutdown();
        }
        // Nothing of the batch landed: the topic holds the warm-up message only.
        final List<MessageExt> got = Clients.drain(broker, topic, 2, Duration.ofSeconds(5));
        assertThat(got).extracting(m -> new String(m.getBody(), StandardCharsets.UTF_8)).containsExactly("warm-up");
    }
}
