package io.junction.cluster.contract;

import io.junction.core.filter.FilterKind;
import io.junction.core.filter.MessageFilter;
import java.util.List;

/** A front-end-defined filter kind for the codec test: a property equals a value (arguments: name, value). */
public final class PropertyEqualsKind implements FilterKind {
    static final String NAME = "test-property-equals";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public MessageFilter compile(final List<String> arguments) {
        final String name = arguments.get(0);
        final String value = arguments.get(1);
        return HandMadeFilters.extension(NAME, arguments, properties -> value.equals(properties.get(name)));
    }
}
