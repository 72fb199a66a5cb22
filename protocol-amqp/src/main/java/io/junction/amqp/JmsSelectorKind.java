package io.junction.amqp;

import io.junction.core.filter.FilterKind;
import io.junction.core.filter.InvalidFilterException;
import io.junction.core.filter.MessageFilter;
import java.util.List;

/**
 * JMS selectors as a describable filter kind (argument: the selector), so that a follower's AMQP consumers with a
 * selector can POP through the leader: the leader compiles the same selector over the same JMS view.
 */
public final class JmsSelectorKind implements FilterKind {
    static final String NAME = "amqp-jms-selector";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public MessageFilter compile(final List<String> arguments) {
        if (arguments.size() != 1) {
            throw new InvalidFilterException("a JMS selector filter takes one argument, not " + arguments.size());
        }
        return JmsSelectors.compile(arguments.get(0));
    }
}
