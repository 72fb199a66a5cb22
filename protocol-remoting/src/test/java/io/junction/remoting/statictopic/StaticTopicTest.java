package io.junction.remoting.statictopic;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.remoting.protocol.Json;
import org.junit.jupiter.api.Test;

class StaticTopicTest {

    @Test
    void shouldNameTheMockBrokerAsTheClientDoes() {
        // TopicQueueMappingUtils.getMockBrokerName: the global scope loses its two leading underscores.
        assertThat(new StaticTopic("t", StaticTopic.GLOBAL_SCOPE, 1, 1).mockBrokerName())
                .isEqualTo("__syslo__global__");
        assertThat(new StaticTopic("t", "eu", 1, 1).mockBrokerName()).isEqualTo("__syslo__eu");
    }

    @Test
    void shouldReadBackWhatItKeepsAndNothingElse() {
        final StaticTopic topic = new StaticTopic("orders", "a;b", 12, 1_700_000_000_000L);
        assertThat(StaticTopic.parseStored("orders", topic.stored())).contains(topic);
        assertThat(StaticTopic.parseStored("orders", "12;x")).isEmpty();
        assertThat(StaticTopic.parseStored("orders", "1;0;__global__")).isEmpty();
        assertThat(StaticTopic.parseStored("orders", "x;2;__global__")).isEmpty();
        assertThat(StaticTopic.parseStored("orders", null)).isEmpty();
    }

    @Test
    void shouldWriteTheDetailAndTheInfoAsFastjsonBeans() {
        final StaticTopic topic = new StaticTopic("orders", StaticTopic.GLOBAL_SCOPE, 2, 5);
        final JsonNode detail = Json.parse(Json.bytes(topic.detailJson("junction")));
        assertThat(detail.path("hostedQueues").path("1").toString()).isEqualTo("[{\"bname\":\"junction\","
                + "\"endOffset\":-1,\"gen\":0,\"logicOffset\":0,\"queueId\":1,\"startOffset\":0,\"timeOfEnd\":-1,"
                + "\"timeOfStart\":-1}]");
        assertThat(detail.path("totalQueues").asInt()).isEqualTo(2);
        assertThat(topic.infoJson("junction")).isEqualTo("{\"bname\":\"junction\",\"currIdMap\":{\"0\":0,\"1\":1},"
                + "\"dirty\":false,\"epoch\":5,\"scope\":\"__global__\",\"topic\":\"orders\",\"totalQueues\":2}");
    }
}
