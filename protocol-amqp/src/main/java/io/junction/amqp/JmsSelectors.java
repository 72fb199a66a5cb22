package io.junction.amqp;

import io.junction.core.filter.FilterSpec;
import io.junction.core.filter.Filters;
import io.junction.core.filter.MessageFilter;
import io.junction.core.filter.TypedProperties;
import io.junction.core.message.MessageProperties;
import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * JMS selectors through the core's SQL filter (JMS dialect), with JMS's typed comparisons. The filter sees a view of a
 * stored message in which
 * <ul>
 *   <li>JMS header fields ({@code JMSType}, {@code JMSPriority}, {@code JMSTimestamp}, ...) resolve to the values this
 *       front-end stored for them, as the AMQP JMS mapping defines them;</li>
 *   <li>every property has the type it was sent with ({@link TypedProperties}): the AMQP type codes kept in
 *       {@value AmqpMessageMapping#TYPES} for application properties, the JMS types for header fields, and string for
 *       everything else (properties of messages from other protocols are strings, as JMS consumers get them). So the
 *       string "2" is not greater than 1 while the int 2 is, as JMS requires.</li>
 * </ul>
 * RocketMQ SQL92 filters never see this view: they keep RocketMQ's conversions.
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
                return sql.matches(new SelectorView(properties, 0));
            }

            @Override
            public boolean matches(final Map<String, String> properties, final long bornTimestamp) {
                return sql.matches(new SelectorView(properties, bornTimestamp));
            }

            @Override
            public FilterSpec spec() {
                return new FilterSpec.Extension(JmsSelectorKind.NAME, List.of(selector));
            }

            @Override
            public String toString() {
                return selector;
            }
        };
    }

    /** What a JMS header name compares as, or null when the name is not a header this view resolves. */
    static TypedProperties.Kind headerKind(final String name) {
        return switch (name) {
            case "JMSType", "JMSMessageID", "JMSCorrelationID", "JMSDeliveryMode", "JMSXGroupID", "JMSXUserID" ->
                    TypedProperties.Kind.STRING;
            case "JMSPriority", "JMSTimestamp", "JMSExpiration", "JMSXGroupSeq" -> TypedProperties.Kind.NUMBER;
            default -> null;
        };
    }

    /**
     * The stored value a JMS header name stands for (as Qpid JMS presents it), or null when the message has none or
     * the name is not a header.
     */
    static String header(final String name, final Map<String, String> p, final long bornTimestamp) {
        switch (name) {
            case "JMSType":
                return p.get(AmqpMessageMapping.SUBJECT);
            case "JMSMessageID":
                return jmsMessageId(p.get(MessageProperties.UNIQUE_ID));
            case "JMSCorrelationID": {
                final String id = p.get(AmqpMessageMapping.CORRELATION_ID);
                // a non-string id is kept with its AMQP_ prefix; Qpid JMS shows those as ID:AMQP_...
                return id != null && id.startsWith("AMQP_") ? "ID:" + id : id;
            }
            case "JMSPriority": {
                final String v = p.get(AmqpMessageMapping.PRIORITY);
                return v == null ? "4" : v;
            }
            case "JMSTimestamp":
                return bornTimestamp > 0 ? Long.toString(bornTimestamp) : null;
            case "JMSDeliveryMode":
                return "false".equals(p.get(AmqpMessageMapping.DURABLE)) ? "NON_PERSISTENT" : "PERSISTENT";
            case "JMSExpiration": {
                final long at = AmqpMessageMapping.expiresAt(p);
                return Long.toString(at);
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

    /** A stored message id as Qpid JMS shows it: {@code ID:} ids as they are, others with the mapping's prefixes. */
    private static String jmsMessageId(final String stored) {
        if (stored == null || stored.startsWith("ID:")) {
            return stored;
        }
        return stored.startsWith("AMQP_") ? "ID:" + stored : "ID:AMQP_NO_PREFIX:" + stored;
    }

    /** The kind of an application property from the AMQP type code stored for it (none: a string). */
    static TypedProperties.Kind kindOfCode(final char code) {
        return switch (code) {
            case TypedValues.STRING, 'y', 'c' -> TypedProperties.Kind.STRING;
            case 'z' -> TypedProperties.Kind.BOOLEAN;
            case 'b', 's', 'i', 'l', 'f', 'd', 'B', 'S', 'I', 'L', 't' -> TypedProperties.Kind.NUMBER;
            default -> TypedProperties.Kind.OTHER;
        };
    }

    /** The type code {@link AmqpMessageMapping} stored for a property ({@code code:name} items, comma-separated). */
    static char typeCode(final String types, final String name) {
        if (types == null) {
            return TypedValues.STRING;
        }
        int at = types.indexOf(name);
        while (at >= 0) {
            final int end = at + name.length();
            if (at >= 2 && types.charAt(at - 1) == ':' && (at == 2 || types.charAt(at - 3) == ',')
                    && (end == types.length() || types.charAt(end) == ',')) {
                return types.charAt(at - 2);
            }
            at = types.indexOf(name, at + 1);
        }
        return TypedValues.STRING;
    }

    /** Read-only view of one stored message for a selector: header names resolved, every value typed. */
    private static final class SelectorView extends AbstractMap<String, String> implements TypedProperties {
        private final Map<String, String> stored;
        private final long bornTimestamp;

        SelectorView(final Map<String, String> stored, final long bornTimestamp) {
            this.stored = stored;
            this.bornTimestamp = bornTimestamp;
        }

        @Override
        public String get(final Object key) {
            if (key instanceof String name && name.startsWith("JMS") && headerKind(name) != null) {
                return header(name, stored, bornTimestamp);
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

        @Override
        public Kind kindOf(final String name) {
            final Kind header = name.startsWith("JMS") ? headerKind(name) : null;
            return header != null ? header : kindOfCode(typeCode(stored.get(AmqpMessageMapping.TYPES), name));
        }
    }
}
