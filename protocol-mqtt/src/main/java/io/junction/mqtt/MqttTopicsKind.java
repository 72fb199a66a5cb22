package io.junction.mqtt;

import io.junction.core.filter.FilterKind;
import io.junction.core.filter.FilterSpec;
import io.junction.core.filter.InvalidFilterException;
import io.junction.core.filter.MessageFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A session's topic filters as a describable filter kind, so that a follower's MQTT sessions can read (POP for shared
 * subscriptions) through the leader. Arguments: the topic used for messages without an MQTT topic (sent with other
 * protocols), then the filters' texts. The description is the session's filters when the read starts: a filter the
 * session adds meanwhile applies from its next read.
 */
public final class MqttTopicsKind implements FilterKind {
    static final String NAME = "mqtt-topics";

    @Override
    public String name() {
        return NAME;
    }

    /** The spec of a reader's filter as it is now. */
    static FilterSpec spec(final String fallbackTopic, final List<TopicFilter> filters) {
        final List<String> arguments = new ArrayList<>(filters.size() + 1);
        arguments.add(fallbackTopic);
        filters.forEach(f -> arguments.add(f.toString()));
        return new FilterSpec.Extension(NAME, arguments);
    }

    /** Whether a message's MQTT topic (or the fallback) matches one of the filters. */
    static boolean matches(final List<TopicFilter> filters, final String fallbackTopic,
                           final Map<String, String> properties) {
        final String topic = properties.get(MqttMessageMapping.TOPIC);
        return TopicFilter.anyMatches(filters, topic != null ? topic : fallbackTopic);
    }

    @Override
    public MessageFilter compile(final List<String> arguments) {
        if (arguments.isEmpty()) {
            throw new InvalidFilterException("an MQTT topics filter needs its fallback topic");
        }
        final String fallbackTopic = arguments.get(0);
        final List<TopicFilter> filters = new ArrayList<>(arguments.size() - 1);
        for (String text : arguments.subList(1, arguments.size())) {
            final TopicFilter f = TopicFilter.parse(text);
            if (f == null) {
                throw new InvalidFilterException("not an MQTT topic filter: " + text);
            }
            filters.add(f);
        }
        return new MessageFilter() {
            @Override
            public boolean matchesTagHash(final long tagHash) {
                return true;
            }

            @Override
            public boolean matches(final Map<String, String> properties) {
                return MqttTopicsKind.matches(filters, fallbackTopic, properties);
            }

            @Override
            public FilterSpec spec() {
                return MqttTopicsKind.spec(fallbackTopic, filters);
            }
        };
    }
}
