package io.junction.cluster.contract;

import io.junction.core.filter.FilterKind;
import io.junction.core.filter.FilterSpec;
import io.junction.core.filter.MessageFilter;
import java.util.List;
import java.util.Map;

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
        return new MessageFilter() {
            @Override
            public boolean matchesTagHash(final long tagHash) {
                return true;
            }

            @Override
            public boolean matches(final Map<String, String> properties) {
                return value.equals(properties.get(name));
            }

            @Override
            public FilterSpec spec() {
                return new FilterSpec.Extension(NAME, arguments);
            }
        };
    }
}
