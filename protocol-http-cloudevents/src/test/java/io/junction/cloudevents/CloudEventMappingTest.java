package io.junction.cloudevents;

import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.junction.core.message.Message;
import io.junction.core.message.ReservedPropertyTable;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CloudEventMappingTest {
    private final CloudEventMapping mapping = new CloudEventMapping("http://broker:8080", "io.junction.message");

    private static final CloudEvent FULL = CloudEventBuilder.v1()
            .withId("e-1").withSource(URI.create("/orders")).withType("com.example.created")
            .withTime(OffsetDateTime.parse("2026-01-02T03:04:05.123Z")).withSubject("o-7")
            .withDataSchema(URI.create("https://example.com/schema")).withDataContentType("application/json")
            .withExtension("traceparent", "00-abc").withExtension("count", 3).withExtension("flag", true)
            .withData("{\"a\":1}".getBytes(StandardCharsets.UTF_8)).build();

    /** Attribute -> property, as the table in CloudEventMapping says. */
    private static final Map<String, String> PROPERTIES = table(
            "CE_id", "e-1",
            "CE_source", "/orders",
            "CE_specversion", "1.0",
            "CE_type", "com.example.created",
            "CE_time", "2026-01-02T03:04:05.123Z",
            "CE_subject", "o-7",
            "CE_dataschema", "https://example.com/schema",
            "CE_contenttype", "application/json",
            "CONTENT_TYPE", "application/json",
            "traceparent", "00-abc", // the Distributed Tracing extension is the canonical trace context
            "CE_count", "3",
            "CE_flag", "true");

    @Test
    void shouldMapEveryAttributeToItsProperty() {
        final Message m = mapping.toMessage("orders", FULL);
        assertThat(m.topic()).isEqualTo("orders");
        assertThat(m.properties()).containsExactlyInAnyOrderEntriesOf(PROPERTIES);
        assertThat(new String(m.body(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
    }

    @Test
    void shouldMapPropertiesBackToTheEvent() {
        final CloudEvent e = mapping.toEvent(PROPERTIES, "{\"a\":1}".getBytes(StandardCharsets.UTF_8), "orders",
                "MSGID", 0L, "r-1");
        assertThat(e.getId()).isEqualTo("e-1");
        assertThat(e.getSource()).isEqualTo(URI.create("/orders"));
        assertThat(e.getType()).isEqualTo("com.example.created");
        assertThat(e.getTime()).isEqualTo(OffsetDateTime.parse("2026-01-02T03:04:05.123Z"));
        assertThat(e.getSubject()).isEqualTo("o-7");
        assertThat(e.getDataSchema()).isEqualTo(URI.create("https://example.com/schema"));
        assertThat(e.getDataContentType()).isEqualTo("application/json");
        assertThat(e.getExtension("traceparent")).isEqualTo("00-abc");
        assertThat(e.getExtension("count")).isEqualTo("3");
        assertThat(e.getExtension("flag")).isEqualTo("true");
        assertThat(e.getExtension("receipt")).isEqualTo("r-1");
        assertThat(e.getData().toBytes()).isEqualTo("{\"a\":1}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRenderAPlainMessageAsAnEvent() {
        final Map<String, String> props = table("UNIQ_KEY", "ABC", "TAGS", "t", "CONTENT_TYPE", "text/plain",
                "region", "eu", "Not_An_Ext", "x");
        final CloudEvent e = mapping.toEvent(props, "hi".getBytes(StandardCharsets.UTF_8), "my topic", "ABC",
                1_700_000_000_000L, null);
        assertThat(e.getId()).isEqualTo("ABC");
        assertThat(e.getSource()).isEqualTo(URI.create("http://broker:8080/topics/my%20topic"));
        assertThat(e.getType()).isEqualTo("io.junction.message");
        assertThat(e.getDataContentType()).isEqualTo("text/plain");
        assertThat(e.getTime()).isEqualTo(OffsetDateTime.parse("2023-11-14T22:13:20Z"));
        assertThat(e.getExtensionNames()).containsExactly("region");
        assertThat(e.getData().toBytes()).isEqualTo("hi".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldNameFilterPropertiesLikeTheMapping() {
        assertThat(CloudEventMapping.propertyOf("type")).isEqualTo("CE_type");
        assertThat(CloudEventMapping.propertyOf("datacontenttype")).isEqualTo("CE_contenttype");
        assertThat(CloudEventMapping.propertyOf("myext")).isEqualTo("CE_myext");
        assertThat(CloudEventMapping.attributeOf("CE_contenttype")).isEqualTo("datacontenttype");
        assertThat(CloudEventMapping.attributeOf("TAGS")).isNull();
    }

    @Test
    void shouldRoundTripWithoutData() {
        final CloudEvent noData = CloudEventBuilder.v1().withId("1").withSource(URI.create("urn:x"))
                .withType("t").build();
        final Message m = mapping.toMessage("t", noData);
        assertThat(m.body()).isEmpty();
        final CloudEvent back = mapping.toEvent(m.properties(), m.body(), "t", "id", 0, null);
        assertThat(back).isEqualTo(noData);
    }

    private static Map<String, String> table(final String... kv) {
        final Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void shouldShowOrdinaryPropertiesOnlyAsExtensionsAsTheCoreRuleSays() {
        final Map<String, String> props = new LinkedHashMap<>();
        for (String name : ReservedPropertyTable.RESERVED) {
            props.put(name, "forged");
        }
        for (String name : ReservedPropertyTable.ORDINARY) {
            props.put(name, "v-" + name);
        }
        final CloudEvent e = mapping.toEvent(props, new byte[0], "t", "id-1", 1000L, null);
        // Only names an extension may have (lower-case letters and digits) can be shown.
        assertThat(e.getExtensionNames()).containsExactlyInAnyOrder("color", "dlq", "retry");
    }
}
