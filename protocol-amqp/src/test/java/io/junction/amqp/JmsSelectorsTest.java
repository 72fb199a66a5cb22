package io.junction.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.filter.MessageFilter;
import io.junction.core.message.MessageProperties;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Selectors see stored AMQP messages with the types their properties were sent with (the {@code amqp.types} codes)
 * and the JMS header fields resolved; messages without type codes (other protocols) have string properties.
 */
class JmsSelectorsTest {

    @Test
    void shouldFindTheTypeCodeOfExactlyTheNamedProperty() {
        final String types = "i:n,z:flag,d:pin,l:a.b";
        assertThat(JmsSelectors.typeCode(types, "n")).isEqualTo('i');
        assertThat(JmsSelectors.typeCode(types, "pin")).isEqualTo('d');
        assertThat(JmsSelectors.typeCode(types, "flag")).isEqualTo('z');
        assertThat(JmsSelectors.typeCode(types, "a.b")).isEqualTo('l');
        assertThat(JmsSelectors.typeCode(types, "in")).isEqualTo(TypedValues.STRING);
        assertThat(JmsSelectors.typeCode(types, "pi")).isEqualTo(TypedValues.STRING);
        assertThat(JmsSelectors.typeCode(types, "i")).isEqualTo(TypedValues.STRING);
        assertThat(JmsSelectors.typeCode(null, "n")).isEqualTo(TypedValues.STRING);
    }

    @Test
    void shouldCompareWithTheTypesPropertiesWereSentWith() {
        final Map<String, String> intTwo = new HashMap<>(Map.of("NumberOfOrders", "2",
                AmqpMessageMapping.TYPES, "i:NumberOfOrders"));
        final Map<String, String> stringTwo = new HashMap<>(Map.of("NumberOfOrders", "2"));
        final MessageFilter greater = JmsSelectors.compile("NumberOfOrders > 1");
        assertThat(greater.matches(intTwo)).isTrue();
        assertThat(greater.matches(stringTwo)).as("a string is not greater than a number").isFalse();
        assertThat(JmsSelectors.compile("NumberOfOrders = '2'").matches(stringTwo)).isTrue();
        assertThat(JmsSelectors.compile("NumberOfOrders = '2'").matches(intTwo)).isFalse();
        assertThat(JmsSelectors.compile("NOT (NumberOfOrders > 1)").matches(stringTwo)).isTrue();
    }

    @Test
    void shouldResolveHeaderFields() {
        final Map<String, String> stored = new HashMap<>();
        stored.put(AmqpMessageMapping.SUBJECT, "gold");
        stored.put(AmqpMessageMapping.PRIORITY, "9");
        stored.put(AmqpMessageMapping.DURABLE, "false");
        stored.put(AmqpMessageMapping.CORRELATION_ID, "AMQP_ULONG:7");
        stored.put(MessageProperties.UNIQUE_ID, "plain-id");
        assertThat(JmsSelectors.compile("JMSType = 'gold' AND JMSPriority > 6").matches(stored)).isTrue();
        assertThat(JmsSelectors.compile("JMSDeliveryMode = 'NON_PERSISTENT'").matches(stored)).isTrue();
        assertThat(JmsSelectors.compile("JMSCorrelationID = 'ID:AMQP_ULONG:7'").matches(stored)).isTrue();
        assertThat(JmsSelectors.compile("JMSMessageID = 'ID:AMQP_NO_PREFIX:plain-id'").matches(stored)).isTrue();
        assertThat(JmsSelectors.compile("JMSPriority = '9'").matches(stored)).as("a number, not a string").isFalse();
        final MessageFilter recent = JmsSelectors.compile("JMSTimestamp >= 1000");
        assertThat(recent.matches(stored, 1500)).isTrue();
        assertThat(recent.matches(stored, 500)).isFalse();
        assertThat(JmsSelectors.compile("JMSPriority = 4").matches(Map.of())).as("the default priority").isTrue();
    }
}
