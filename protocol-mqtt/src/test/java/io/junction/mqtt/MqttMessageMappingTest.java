package io.junction.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.message.Message;
import io.junction.core.message.ReservedPropertyTable;
import io.netty.handler.codec.mqtt.MqttProperties;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MqttMessageMappingTest {

    @Test
    void shouldCarryMqtt5PropertiesThroughTheCore() {
        final MqttProperties props = new MqttProperties();
        props.add(new MqttProperties.StringProperty(MqttProperties.CONTENT_TYPE, "application/json"));
        props.add(new MqttProperties.IntegerProperty(MqttProperties.PAYLOAD_FORMAT_INDICATOR, 1));
        props.add(new MqttProperties.IntegerProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL, 60));
        props.add(new MqttProperties.StringProperty(MqttProperties.RESPONSE_TOPIC, "replies/1"));
        props.add(new MqttProperties.BinaryProperty(MqttProperties.CORRELATION_DATA, new byte[] {1, 2, 3}));
        props.add(new MqttProperties.UserProperty("unit", "celsius"));
        props.add(new MqttProperties.UserProperty("unit", "kelvin"));
        props.add(new MqttProperties.UserProperty("TAGS", "not-a-tag"));

        final Message m = MqttMessageMapping.toCore("sensors/room1", MqttNamespace.DEFAULT, "21".getBytes(StandardCharsets.UTF_8), 1,
                false, props, "c1", 4, null, 1_000).message();

        assertThat(m.topic()).isEqualTo("sensors");
        assertThat(m.queueId()).isBetween(0, 3);
        assertThat(m.properties()).containsEntry("mqtt.topic", "sensors/room1").containsEntry("unit", "celsius")
                .containsEntry("CONTENT_TYPE", "application/json").containsEntry("mqtt.expires.at", "61000")
                .doesNotContainKey("TAGS");

        final MqttMessageMapping.Outbound out = MqttMessageMapping.fromCore("sensors", m.properties(), m.body(),
                31_000);
        assertThat(out.topic()).isEqualTo("sensors/room1");
        assertThat(out.qos()).isEqualTo(1);
        assertThat(out.publisher()).isEqualTo("c1");
        assertThat(MqttMessageMapping.stringProperty(out.properties(), MqttProperties.CONTENT_TYPE))
                .isEqualTo("application/json");
        assertThat(MqttMessageMapping.stringProperty(out.properties(), MqttProperties.RESPONSE_TOPIC))
                .isEqualTo("replies/1");
        assertThat(MqttMessageMapping.intProperty(out.properties(), MqttProperties.PUBLICATION_EXPIRY_INTERVAL))
                .isEqualTo(30);
        assertThat((byte[]) out.properties().getProperty(MqttProperties.CORRELATION_DATA).value())
                .containsExactly(1, 2, 3);
        assertThat(MqttMessageMapping.userProperties(out.properties()))
                .containsExactly(new MqttProperties.StringPair("unit", "celsius"));
    }

    @Test
    void shouldMapResponseTopicAndCorrelationDataOntoTheCanonicalReplyPair() {
        final String[][] table = {
            // response topic, correlation data (UTF-8), REPLY_TO, CORRELATION_ID
            {"replies", "req-1", "replies", "req-1"},
            {"resp/client-7", "é-2", "resp/client-7", "é-2"},
            {"café/x/y", "", "caf%C3%A9/x/y", ""},
            {"/leading", "base64:looks-ours", "%/leading", "base64:YmFzZTY0Omxvb2tzLW91cnM="},
        };
        for (String[] row : table) {
            final MqttProperties props = new MqttProperties();
            props.add(new MqttProperties.StringProperty(MqttProperties.RESPONSE_TOPIC, row[0]));
            props.add(new MqttProperties.BinaryProperty(MqttProperties.CORRELATION_DATA,
                    row[1].getBytes(StandardCharsets.UTF_8)));
            final Message m = MqttMessageMapping.toCore("svc/req", MqttNamespace.DEFAULT, new byte[0], 1, false,
                    props, "c1", 1, null, 0).message();
            assertThat(m.properties()).as(row[0]).containsEntry("REPLY_TO", row[2])
                    .containsEntry("CORRELATION_ID", row[3]);
            final MqttMessageMapping.Outbound out = MqttMessageMapping.fromCore("svc", m.properties(), m.body(), 0);
            assertThat(MqttMessageMapping.stringProperty(out.properties(), MqttProperties.RESPONSE_TOPIC))
                    .isEqualTo(row[0]);
            assertThat((byte[]) out.properties().getProperty(MqttProperties.CORRELATION_DATA).value())
                    .isEqualTo(row[1].getBytes(StandardCharsets.UTF_8));
            assertThat(MqttMessageMapping.userProperties(out.properties())).isEmpty();
        }
    }

    @Test
    void shouldGiveAnotherProtocolsRequestAResponseTopicAndCorrelationData() {
        final Map<String, String> rocketMq = new LinkedHashMap<>();
        rocketMq.put("REPLY_TO", "JunctionCluster_REPLY_TOPIC");
        rocketMq.put("CORRELATION_ID", "7c9e6679-7425-40de-944b-e07fc1f90ae7");
        rocketMq.put("REPLY_TO_CLIENT", "10.0.0.5@4242#1");
        rocketMq.put("TTL", "3000");
        rocketMq.put("CLUSTER", "JunctionCluster");
        final MqttMessageMapping.Outbound out = MqttMessageMapping.fromCore("svc", rocketMq, new byte[0], 0);
        assertThat(MqttMessageMapping.stringProperty(out.properties(), MqttProperties.RESPONSE_TOPIC))
                .isEqualTo("JunctionCluster_REPLY_TOPIC");
        assertThat(new String((byte[]) out.properties().getProperty(MqttProperties.CORRELATION_DATA).value(),
                StandardCharsets.UTF_8)).isEqualTo("7c9e6679-7425-40de-944b-e07fc1f90ae7");
        assertThat(MqttMessageMapping.userProperties(out.properties()))
                .containsExactly(new MqttProperties.StringPair("TTL", "3000"));

        final Map<String, String> wildcard = Map.of("REPLY_TO", "replies/#");
        assertThat(MqttMessageMapping.fromCore("svc", wildcard, new byte[0], 0).properties()
                .getProperty(MqttProperties.RESPONSE_TOPIC)).as("a filter is no response topic").isNull();
    }

    @Test
    void shouldDeliverOtherProtocolsMessagesUnderTheirCoreTopic() {
        final Map<String, String> props = new LinkedHashMap<>();
        props.put("TAGS", "t");
        props.put("UNIQ_KEY", "id");
        props.put("color", "red");
        final MqttMessageMapping.Outbound out = MqttMessageMapping.fromCore("%24SYS", props, new byte[] {7}, 0);
        assertThat(out.topic()).isEqualTo("$SYS");
        assertThat(out.qos()).isEqualTo(1);
        assertThat(MqttMessageMapping.userProperties(out.properties()))
                .isEqualTo(List.of(new MqttProperties.StringPair("color", "red")));
    }

    @Test
    void shouldShowSubscribersOrdinaryPropertiesOnlyAsTheCoreRuleSays() {
        final Map<String, String> props = new LinkedHashMap<>();
        for (String name : ReservedPropertyTable.RESERVED) {
            props.put(name, "forged");
        }
        for (String name : ReservedPropertyTable.ORDINARY) {
            props.put(name, "v-" + name);
        }
        final MqttMessageMapping.Outbound out = MqttMessageMapping.fromCore("t", props, new byte[0], 0);
        assertThat(MqttMessageMapping.userProperties(out.properties())).extracting(p -> p.key)
                .containsExactlyElementsOf(ReservedPropertyTable.ORDINARY);
    }
}
