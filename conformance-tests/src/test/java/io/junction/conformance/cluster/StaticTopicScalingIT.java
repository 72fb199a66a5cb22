package io.junction.conformance.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.ClusterLaunch;
import io.junction.conformance.support.ClusterProcesses;
import io.junction.conformance.support.MqAdminCommand;
import io.junction.conformance.support.RocketMqAdmin;
import io.junction.conformance.support.RunningBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.admin.TopicOffset;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.statictopic.LogicQueueMappingItem;
import org.apache.rocketmq.remoting.protocol.statictopic.TopicConfigAndQueueMapping;
import org.apache.rocketmq.remoting.protocol.statictopic.TopicQueueMappingDetail;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.apache.rocketmq.tools.command.topic.RemappingStaticTopicSubCommand;
import org.apache.rocketmq.tools.command.topic.UpdateStaticTopicSubCommand;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A RocketMQ static topic made with {@code mqadmin updateStaticTopic} through a proxy over two store groups (one
 * {@code store} replica each), then its logic queue 0 moved from g1 to g2 by the proxy's
 * {@code POST /admin/topics/{t}/scale} mid-stream, and {@code mqadmin remappingStaticTopic} run afterwards: the
 * Remoting producer and a lite pull consumer never notice. The move happens below the broker name, so the mapping the
 * tools read stays one item per logic queue (a newer epoch after remapping), the acknowledged logic offsets of queue
 * 0 go on 0..19 across the seam, the consumer reads them all once, in send order, and {@code topicStatus} counts 20.
 */
@Tag("cluster")
class StaticTopicScalingIT {
    private static final String TOPIC = "static-scaled";
    private static final String LOGIC_BROKER = "__syslo__global__";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final ClusterProcesses cluster = new ClusterProcesses();
    private final List<RunningBroker> stores = cluster.stores();
    private final List<RunningBroker> proxies = cluster.proxies();
    private final List<AutoCloseable> clients = cluster.clients();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void shouldKeepAStaticTopicsLogicQueueGaplessWhenTheProxyScalesItOntoAnotherGroup() throws Exception {
        ClusterLaunch.storeGroupsAndProxies(2, 1, "-Xmx160m", 1, stores, proxies);
        final RunningBroker proxy = proxies.get(0);
        final DefaultMQAdminExt admin = RocketMqAdmin.started(proxy.nameServer());
        clients.add(admin::shutdown);
        final ClusterInfo cluster = admin.examineBrokerClusterInfo();
        final String clusterName = cluster.getClusterAddrTable().keySet().iterator().next();
        final String brokerName = cluster.getBrokerAddrTable().keySet().iterator().next();

        MqAdminCommand.run(proxy.nameServer(), new UpdateStaticTopicSubCommand(), "-t", TOPIC, "-qn", "2", "-c",
                clusterName);
        final long firstEpoch = mapping(admin, proxy).getEpoch();
        assertThat(proxy.get("/cluster").body()).contains("\"" + TOPIC + "\":\"g1;g2\"");

        final DefaultMQProducer producer = new DefaultMQProducer("static-scaled-producer");
        producer.setNamesrvAddr(proxy.nameServer());
        producer.setInstanceName("static-scaled-" + System.nanoTime());
        producer.setSendMsgTimeout(15_000);
        producer.start();
        clients.add(producer::shutdown);
        final List<Long> acknowledged = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            acknowledged.add(sendToQueue0(producer, i).getQueueOffset());
        }

        // Queue 0's writes move onto g2 (its g1 segment sealed at 10); queue 1 is on g2 already.
        final HttpResponse<String> scaled = post(proxy, "/admin/topics/" + TOPIC + "/scale?queues=2&groups=g2");
        assertThat(scaled.statusCode()).as(scaled.body()).isEqualTo(200);
        assertThat(scaled.body()).containsPattern("\"placement\":\"g1:0:0:0:10,g2:[0-9]+:10:0:-;g2\"");
        for (int i = 10; i < 20; i++) {
            acknowledged.add(sendToQueue0(producer, i).getQueueOffset());
        }
        assertThat(acknowledged).as("queue 0's logic offsets across the seam").isEqualTo(range(0, 20));

        // The tools see one broker whose logic queues did not move: remapping writes a newer epoch, nothing else.
        MqAdminCommand.run(proxy.nameServer(), new RemappingStaticTopicSubCommand(), "-t", TOPIC, "-c",
                clusterName);
        final TopicQueueMappingDetail remapped = mapping(admin, proxy);
        assertThat(remapped.getEpoch()).isGreaterThan(firstEpoch);
        assertThat(remapped.getBname()).isEqualTo(brokerName);
        for (int q = 0; q < 2; q++) {
            final List<LogicQueueMappingItem> items = remapped.getHostedQueues().get(q);
            assertThat(items).hasSize(1);
            assertThat(items.get(0).getQueueId()).isEqualTo(q);
            assertThat(items.get(0).getEndOffset()).isEqualTo(-1);
        }
        // A proxy answers offsets from its mirror of the groups, at most about half a second behind them.
        final TopicOffset logic0 = await().atMost(WAIT).ignoreExceptions().until(() -> admin.examineTopicStats(TOPIC)
                .getOffsetTable().get(new MessageQueue(TOPIC, LOGIC_BROKER, 0)), o -> o.getMaxOffset() == 20);
        assertThat(logic0.getMinOffset()).isZero();

        final List<MessageExt> read = readQueue0(proxy, 20);
        assertThat(read).extracting(m -> new String(m.getBody(), StandardCharsets.UTF_8))
                .containsExactlyElementsOf(range(0, 20).stream().map(i -> "s" + i).toList());
        assertThat(read).extracting(MessageExt::getQueueOffset).containsExactlyElementsOf(range(0, 20));
    }

    private static TopicQueueMappingDetail mapping(final DefaultMQAdminExt admin, final RunningBroker proxy) {
        return await().atMost(WAIT).ignoreExceptions().until(() -> ((TopicConfigAndQueueMapping) admin
                .examineTopicConfig(proxy.nameServer(), TOPIC)).getMappingDetail(), d -> d != null);
    }

    private static SendResult sendToQueue0(final DefaultMQProducer producer, final int i) throws Exception {
        return producer.send(new Message(TOPIC, ("s" + i).getBytes(StandardCharsets.UTF_8)),
                (mqs, msg, arg) -> mqs.stream().filter(q -> q.getQueueId() == 0).findFirst().orElseThrow(), null);
    }

    private List<MessageExt> readQueue0(final RunningBroker proxy, final int count) throws Exception {
        final DefaultLitePullConsumer consumer = new DefaultLitePullConsumer("static-scaled-reader");
        consumer.setNamesrvAddr(proxy.nameServer());
        consumer.setInstanceName("static-scaled-reader-" + System.nanoTime());
        consumer.start();
        clients.add(consumer::shutdown);
        final MessageQueue queue0 = await().atMost(WAIT).ignoreException(MQClientException.class)
                .until(() -> consumer.fetchMessageQueues(TOPIC), q -> !q.isEmpty()).stream()
                .filter(q -> q.getQueueId() == 0).findFirst().orElseThrow();
        assertThat(queue0.getBrokerName()).isEqualTo(LOGIC_BROKER);
        consumer.assign(List.of(queue0));
        consumer.seekToBegin(queue0);
        final List<MessageExt> out = new ArrayList<>();
        final long end = System.nanoTime() + WAIT.toNanos();
        while (out.size() < count && System.nanoTime() < end) {
            out.addAll(consumer.poll(500));
        }
        return out;
    }

    private static List<Long> range(final long from, final long to) {
        final List<Long> out = new ArrayList<>();
        for (long i = from; i < to; i++) {
            out.add(i);
        }
        return out;
    }

    private HttpResponse<String> post(final RunningBroker proxy, final String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(proxy.httpBase() + path))
                .timeout(Duration.ofSeconds(20)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
}
