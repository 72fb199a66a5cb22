package io.junction.broker.lifecycle;

import io.junction.spi.ProtocolFrontEnd;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;

/** Finds the front-ends on the classpath. */
public final class FrontEnds {

    private FrontEnds() {
    }

    /**
     * Every {@link ProtocolFrontEnd} listed in a {@code META-INF/services} file, in classpath order.
     *
     * @throws IllegalStateException if one cannot be instantiated or two share a name
     */
    public static List<ProtocolFrontEnd> discover(final ClassLoader loader) {
        final List<ProtocolFrontEnd> found = new ArrayList<>();
        final Set<String> names = new HashSet<>();
        try {
            for (final ProtocolFrontEnd frontEnd : ServiceLoader.load(ProtocolFrontEnd.class, loader)) {
                if (!names.add(frontEnd.name())) {
                    throw new IllegalStateException("two front-ends are named " + frontEnd.name());
                }
                found.add(frontEnd);
            }
        } catch (final ServiceConfigurationError e) {
            throw new IllegalStateException("cannot load a protocol front-end: " + e.getMessage(), e);
        }
        return List.copyOf(found);
    }
}
