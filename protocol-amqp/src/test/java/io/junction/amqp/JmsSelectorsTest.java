package io.junction.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.filter.FilterSpec;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.MessageProperties;
import java.util.HashMap;
import java.util.List;
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

    @Test
    void shouldDescribeASelectorSoThatAnotherNodeCompilesTheSameFilter() {
        final Map<String, String> typedGold = new HashMap<>(Map.of("NumberOfOrders", "2",
                AmqpMessageMapping.TYPES, "i:NumberOfOrders", AmqpMessageMapping.SUBJECT, "gold"));
        final Map<String, String> stringGold = new HashMap<>(Map.of("NumberOfOrders", "2",
                AmqpMessageMapping.SUBJECT, "gold"));
        final Map<String, String> typedSilver = new HashMap<>(Map.of("NumberOfOrders", "5",
                AmqpMessageMapping.TYPES, "i:NumberOfOrders", AmqpMessageMapping.SUBJECT, "silver"));
        final MessageFilter original = JmsSelectors.compile("NumberOfOrders > 1 AND JMSType = 'gold'");
        final FilterSpec spec = original.spec();
        assertThat(spec).isEqualTo(new FilterSpec.Extension(JmsSelectorKind.NAME,
                List.of("NumberOfOrders > 1 AND JMSType = 'gold'")));
        // Compiled again through the kind the module registers (ServiceLoader), as the leader does.
        final MessageFilter again = spec.compile();
        for (Map<String, String> m : List.of(typedGold, stringGold, typedSilver)) {
            assertThat(again.matches(m, 1000)).as("%s", m).isEqualTo(original.matches(m, 1000));
        }
        assertThat(again.matches(typedGold)).isTrue();
        assertThat(again.matches(stringGold)).as("a string is not greater than a number").isFalse();
        assertThat(again.matches(typedSilver)).isFalse();
        assertThat(again.spec()).isEqualTo(spec);
    }
}
