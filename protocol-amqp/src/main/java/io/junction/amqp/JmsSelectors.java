package io.junction.amqp;

import io.junction.core.filter.Filters;
import io.junction.core.filter.MessageFilter;
import io.junction.core.message.MessageProperties;
import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;

/**
 * JMS selectors through the core's SQL filter (JMS dialect). Selectors name JMS header fields ({@code JMSType},
 * {@code JMSPriority}, ...) that this front-end stores under other property names; the filter sees a view of the
 * message's properties in which those names resolve to the stored values, as the AMQP JMS mapping defines them.
 */
final class JmsSelectors {
    private JmsSelectors() {
    }

    /**
     * Compiles a selector; null or blank selects everything.
     *
     * @throws io.junction.core.filter.InvalidFilterException when the selector is malformed
     */
    static MessageFilter compile(final String selector) {
        final MessageFilter sql = Filters.jmsSelector(selector);
        if (sql == MessageFilter.ALL) {
            return sql;
        }
        return new MessageFilter() {
            @Override
            public boolean matchesTagHash(final long tagHash) {
                return true;
            }

            @Override
            public boolean matches(final Map<String, String> properties) {
                return sql.matches(new HeaderView(properties));
            }

            @Override
            public String toString() {
                return selector;
            }
        };
    }

    /** The stored value a JMS header name stands for, or null when the name is not a mapped header. */
    static String header(final String name, final Map<String, String> p) {
        switch (name) {
            case "JMSType":
                return p.get(AmqpMessageMapping.SUBJECT);
            case "JMSMessageID":
                return p.get(MessageProperties.UNIQUE_ID);
            case "JMSCorrelationID":
                return p.get(AmqpMessageMapping.CORRELATION_ID);
            case "JMSPriority": {
                final String v = p.get(AmqpMessageMapping.PRIORITY);
                return v == null ? "4" : v;
            }
            case "JMSDeliveryMode":
                return "false".equals(p.get(AmqpMessageMapping.DURABLE)) ? "NON_PERSISTENT" : "PERSISTENT";
            case "JMSExpiration": {
                final String v = p.get(AmqpMessageMapping.EXPIRES_AT);
                return v == null ? "0" : v;
            }
            case "JMSXGroupID":
                return p.get(MessageProperties.MESSAGE_GROUP);
            case "JMSXGroupSeq":
                return p.get(AmqpMessageMapping.GROUP_SEQUENCE);
            case "JMSXUserID":
                return p.get(AmqpMessageMapping.USER_ID);
            default:
                return null;
        }
    }

    /** Read-only view: JMS header names resolve through {@link #header}, everything else as stored. */
    private static final class HeaderView extends AbstractMap<String, String> {
        private final Map<String, String> stored;

        HeaderView(final Map<String, String> stored) {
            this.stored = stored;
        }

        @Override
        public String get(final Object key) {
            if (key instanceof String name && name.startsWith("JMS")) {
                final String h = header(name, stored);
                if (h != null) {
                    return h;
                }
            }
            return stored.get(key);
        }

        @Override
        public boolean containsKey(final Object key) {
            return get(key) != null;
        }

        @Override
        public Set<Entry<String, String>> entrySet() {
            return stored.entrySet();
        }
    }
}
