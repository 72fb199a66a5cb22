package io.junction.remoting.processor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.meta.TopicConfig;
import io.junction.remoting.BrokerIdentity;
import io.junction.remoting.ClientChannels;
import io.junction.remoting.protocol.Json;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.remoting.statictopic.StaticTopics;
import io.junction.spi.clients.ClientRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * UPDATE_AND_CREATE_STATIC_TOPIC against a real store, with bodies written as the admin tool's fastjson writes them
 * (integer map keys unquoted), and what routes and GET_TOPIC_CONFIG then answer.
 */
class StaticTopicProcessorTest {
    private static final BrokerIdentity BROKER = new BrokerIdentity("junction", "JunctionCluster", "127.0.0.1:9876");
    private MessageStore store;
    private StaticTopicProcessor statics;
    private RouteProcessor routes;
    private AdminProcessor admin;

    @BeforeEach
    void open() throws Exception {
        final Path dir = Files.createTempDirectory("static-topics");
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(16 << 20)
                .flushInterval(Duration.ofMillis(50)).build());
        final StaticTopics kept = new StaticTopics(store);
        statics = new StaticTopicProcessor(store, BROKER, kept);
        routes = new RouteProcessor(store, BROKER, kept);
        admin = new AdminProcessor(store, BROKER, new ClientChannels(new ClientRegistry()), new AtomicInteger(),
                kept);
    }

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    /** One logic queue's item list as {@code createTopicConfigMapping} makes it for a broker. */
    private static String item(final int gen, final int queueId, final String bname, final long logicOffset,
                               final long endOffset) {
        return "[" + entry(gen, queueId, bname, logicOffset, endOffset) + "]";
    }

    private static String entry(final int gen, final int queueId, final String bname, final long logicOffset,
                                final long endOffset) {
        return "{\"bname\":\"" + bname + "\",\"endOffset\":" + endOffset + ",\"gen\":" + gen + ",\"logicOffset\":"
                + logicOffset + ",\"queueId\":" + queueId + ",\"startOffset\":0,\"timeOfEnd\":-1,\"timeOfStart\":-1}";
    }

    private static String detail(final String topic, final String bname, final long epoch, final int total,
                                 final String... hosted) {
        final StringBuilder sb = new StringBuilder("{\"bname\":\"" + bname + "\",\"currIdMap\":{},\"dirty\":false,"
                + "\"epoch\":" + epoch + ",\"hostedQueues\":{");
        for (int q = 0; q < hosted.length; q++) {
            sb.append(q > 0 ? "," : "").append(q).append(':').append(hosted[q]);
        }
        return sb.append("},\"scope\":\"__global__\",\"topic\":\"").append(topic).append("\",\"totalQueues\":")
                .append(total).append('}').toString();
    }

    private static String[] oneToOne(final int queues) {
        final String[] out = new String[queues];
        for (int q = 0; q < queues; q++) {
            out[q] = item(0, q, "junction", 0, -1);
        }
        return out;
    }

    private RemotingCommand create(final String topic, final String body, final boolean force) {
        final RemotingCommand request = RemotingCommand.request(RequestCode.UPDATE_AND_CREATE_STATIC_TOPIC, 7, false)
                .put("topic", topic).put("defaultTopic", "TBW102").put("readQueueNums", 3).put("writeQueueNums", 3)
                .put("perm", 6).put("topicFilterType", "SINGLE_TAG").put("topicSysFlag", 0).put("order", false)
                .put("force", force).body(body.getBytes(StandardCharsets.UTF_8));
        return statics.process(null, request).join();
    }

    private JsonNode route(final String topic) {
        final RemotingCommand response = routes.process(null,
                RemotingCommand.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, 8, false).put("topic", topic)).join();
        assertThat(response.code()).isEqualTo(ResponseCode.SUCCESS);
        return Json.parse(response.body());
    }

    private JsonNode topicConfig(final String topic, final boolean lo) {
        final RemotingCommand request = RemotingCommand.request(AdminProcessor.GET_TOPIC_CONFIG, 9, false)
                .put("topic", topic);
        if (lo) {
            request.put("lo", true);
        }
        final RemotingCommand response = admin.process(null, request).join();
        assertThat(response.code()).isEqualTo(ResponseCode.SUCCESS);
        return Json.parse(response.body());
    }

    @Test
    void shouldCreateTheTopicAndShowItsMappingInRoutesAndTopicConfig() {
        final RemotingCommand answer = create("orders", detail("orders", "junction", 1000, 3, oneToOne(3)), false);

        assertThat(answer.code()).as(answer.remark()).isEqualTo(ResponseCode.SUCCESS);
        assertThat(store.route("orders")).map(TopicConfig::queueCount).contains(3);
        final JsonNode info = route("orders").path("topicQueueMappingByBroker").path("junction");
        assertThat(info.path("bname").asText()).isEqualTo("junction");
        assertThat(info.path("epoch").asLong()).isEqualTo(1000);
        assertThat(info.path("totalQueues").asInt()).isEqualTo(3);
        assertThat(info.path("scope").asText()).isEqualTo("__global__");
        assertThat(info.path("currIdMap").toString()).isEqualTo("{\"0\":0,\"1\":1,\"2\":2}");

        final JsonNode config = topicConfig("orders", true);
        assertThat(config.path("writeQueueNums").asInt()).isEqualTo(3);
        final JsonNode items = config.path("mappingDetail").path("hostedQueues").path("2");
        assertThat(items).hasSize(1);
        assertThat(items.get(0).path("queueId").asInt()).isEqualTo(2);
        assertThat(items.get(0).path("bname").asText()).isEqualTo("junction");
        assertThat(items.get(0).path("endOffset").asLong()).isEqualTo(-1);
        assertThat(topicConfig("orders", false).has("mappingDetail")).isFalse();
    }

    @Test
    void shouldGrowTheTopicWithANewerEpochAndKeepTheQueuesItLeavesOut() {
        assertThat(create("grow", detail("grow", "junction", 1000, 2, oneToOne(2)), false).code()).isZero();
        // A newer epoch naming only the new queues keeps the old ones, as RocketMQ's broker does.
        final RemotingCommand grown = create("grow", "{\"bname\":\"junction\",\"dirty\":false,\"epoch\":2000,"
                + "\"hostedQueues\":{2:" + item(0, 2, "junction", 0, -1) + ",3:" + item(0, 3, "junction", 0, -1)
                + "},\"scope\":\"__global__\",\"topic\":\"grow\",\"totalQueues\":4}", false);

        assertThat(grown.code()).as(grown.remark()).isZero();
        assertThat(store.route("grow")).map(TopicConfig::queueCount).contains(4);
        assertThat(route("grow").path("topicQueueMappingByBroker").path("junction").path("epoch").asLong())
                .isEqualTo(2000);
    }

    @Test
    void shouldRefuseMappingsItCannotServeAsWritten() {
        assertThat(create("t1", detail("t1", "broker-b", 1000, 1, item(0, 0, "broker-b", 0, -1)), false).remark())
                .contains("this broker is junction");
        final RemotingCommand moved = create("t2", detail("t2", "junction", 1000, 2, item(0, 0, "junction", 0, -1),
                item(0, 0, "junction", 0, -1)), false);
        assertThat(moved.code()).isEqualTo(ResponseCode.SYSTEM_ERROR);
        assertThat(moved.remark()).contains("logic queue 1").contains("/admin/topics/t2/scale");
        // A remapped queue: the sealed first generation, then a second one in another physical queue.
        assertThat(create("t3", detail("t3", "junction", 1000, 1, "[" + entry(0, 0, "junction", 0, 100) + ","
                + entry(1, 1, "junction", 100, -1) + "]"), false).remark()).contains("logic queue 0");
        assertThat(create("t4", detail("t4", "junction", 1000, 3, oneToOne(2)), false).remark())
                .contains("logic queues [2]");
        assertThat(store.route("t1")).isEmpty();
        assertThat(store.route("t2")).isEmpty();
        assertThat(store.route("t4")).isEmpty();

        assertThat(create("t5", detail("t5", "junction", 2000, 2, oneToOne(2)), false).code()).isZero();
        assertThat(create("t5", detail("t5", "junction", 1000, 2, oneToOne(2)), false).remark())
                .contains("small epoch 1000 < 2000");
        assertThat(create("t5", detail("t5", "junction", 1000, 2, oneToOne(2)), true).code()).isZero();

        store.topics().createOrUpdate(TopicConfig.of("t6", 4)).join();
        assertThat(create("t6", detail("t6", "junction", 1000, 2, oneToOne(2)), false).remark())
                .contains("has 4 queues");
        assertThat(store.route("t6")).map(TopicConfig::queueCount).contains(4);
    }

    @Test
    void shouldForgetTheMappingWhenTheTopicIsDeleted() {
        assertThat(create("gone", detail("gone", "junction", 1000, 2, oneToOne(2)), false).code()).isZero();
        final RemotingCommand deleted = admin.process(null,
                RemotingCommand.request(RequestCode.DELETE_TOPIC_IN_BROKER, 10, false).put("topic", "gone")).join();
        assertThat(deleted.code()).isZero();

        store.topics().createOrUpdate(TopicConfig.of("gone", 2)).join();
        assertThat(route("gone").has("topicQueueMappingByBroker")).isFalse();
    }
}
