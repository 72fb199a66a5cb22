package io.junction.conformance.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.RocketMqAdmin;
import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.trace.TraceBean;
import org.apache.rocketmq.client.trace.TraceContext;
import org.apache.rocketmq.client.trace.TraceDataEncoder;
import org.apache.rocketmq.client.trace.TraceType;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RocketMQ message trace written by the clients themselves ({@code enableMsgTrace}): the trace records they send to
 * {@code RMQ_SYS_TRACE_TOPIC} are stored and indexed by their keys, so the query RocketMQ's tools make (the trace
 * topic by message id as key, then decoding the records) finds the message's publish and consume.
 */
class MessageTraceIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    @TempDir
    Path tmp;

    @Test
    void shouldStoreAndIndexClientTracesSoTheTraceQueryByMessageIdFindsThem() throws Exception {
        try (RunningBroker broker = RunningBroker.builder().dataDir(tmp.resolve("data")).start()) {
            final String nameServer = broker.nameServer();
            final DefaultMQProducer producer = new DefaultMQProducer("traced-producer", true, null);
            producer.setNamesrvAddr(nameServer);
            producer.setInstanceName("traced-producer");
            // The first send looks the route up and creates the topic: on a busy shared machine that can take longer
            // than the client's default 3 s.
            producer.setSendMsgTimeout((int) DEADLINE.toMillis());
            producer.start();
            final DefaultMQAdminExt admin = RocketMqAdmin.started(nameServer);
            final AtomicInteger consumed = new AtomicInteger();
            // Started after the send created the topic: its first rebalance finds the queues at once (otherwise the
            // next one comes 20 s later).
            final DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("traced-consumer", true, null);
            consumer.setNamesrvAddr(nameServer);
            consumer.setInstanceName("traced-consumer");
            consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            consumer.subscribe("traced-orders", "*");
            consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
                consumed.addAndGet(msgs.size());
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            try {
                final SendResult sent = producer.send(new Message("traced-orders", "TagA", "order-7",
                        "paid".getBytes(StandardCharsets.UTF_8)));
                assertThat(sent.getSendStatus()).isEqualTo(SendStatus.SEND_OK);
                final String msgId = sent.getMsgId();
                consumer.start();
                await().atMost(DEADLINE).until(() -> consumed.get() >= 1);

                // The clients send their trace records in the background, batched: poll until all three are there.
                await().atMost(DEADLINE).untilAsserted(() -> {
                    final List<TraceContext> traces = new ArrayList<>();
                    for (final MessageExt record : traceRecords(admin, msgId)) {
                        traces.addAll(TraceDataEncoder.decoderFromTraceDataString(
                                new String(record.getBody(), StandardCharsets.UTF_8)));
                    }
                    final List<TraceBean> pub = beans(traces, TraceType.Pub, msgId);
                    assertThat(pub).singleElement().satisfies(b -> {
                        assertThat(b.getTopic()).isEqualTo("traced-orders");
                        assertThat(b.getKeys()).contains("order-7");
                    });
                    assertThat(beans(traces, TraceType.SubBefore, msgId)).as("SubBefore among %s", describe(traces))
                            .isNotEmpty();
                    assertThat(beans(traces, TraceType.SubAfter, msgId)).as("SubAfter among %s", describe(traces))
                            .isNotEmpty();
                });
                // The trace topic is searchable by the message's own key as well, as RocketMQ indexes it.
                assertThat(traceRecords(admin, "order-7")).isNotEmpty();
            } finally {
                admin.shutdown();
                producer.shutdown();
                consumer.shutdown();
            }
            assertThat(broker.process().terminate(DEADLINE)).isZero();
        }
    }

    /** The trace topic's records carrying {@code key}; none yet when the broker answers "no message" (208). */
    private static List<MessageExt> traceRecords(final DefaultMQAdminExt admin, final String key) throws Exception {
        try {
            return admin.queryMessage(TopicValidator.RMQ_SYS_TRACE_TOPIC, key, 64, 0, Long.MAX_VALUE)
                    .getMessageList();
        } catch (final MQClientException e) {
            if (e.getResponseCode() == ResponseCode.NO_MESSAGE) {
                return List.of();
            }
            throw e;
        }
    }

    private static List<String> describe(final List<TraceContext> traces) {
        return traces.stream().map(t -> t.getTraceType() + " " + t.getGroupName() + " "
                + t.getTraceBeans().stream().map(TraceBean::getMsgId).toList()).toList();
    }

    private static List<TraceBean> beans(final List<TraceContext> traces, final TraceType type, final String msgId) {
        return traces.stream().filter(t -> t.getTraceType() == type)
                .flatMap(t -> t.getTraceBeans().stream()).filter(b -> msgId.equals(b.getMsgId())).toList();
    }
}
