package io.junction.core.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MessagePropertiesTest {

    @Test
    void shouldReserveTheCoresAndRocketMqsBookkeepingNames() {
        for (String name : ReservedPropertyTable.RESERVED) {
            assertThat(MessageProperties.isReserved(name)).as(name).isTrue();
        }
    }

    @Test
    void shouldLeaveOrdinaryNamesToUsers() {
        for (String name : ReservedPropertyTable.ORDINARY) {
            assertThat(MessageProperties.isReserved(name)).as(name).isFalse();
        }
    }

    @Test
    void shouldRoundTripPropertiesThroughTheStoredEncoding() {
        final Map<String, String> properties = new LinkedHashMap<>();
        properties.put("color", "red");
        properties.put(MessageProperties.TAGS, "a");
        assertThat(MessageProperties.decode(MessageProperties.encode(properties))).containsExactlyEntriesOf(properties);
    }
}
