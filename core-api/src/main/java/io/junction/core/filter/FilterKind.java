package io.junction.core.filter;

import java.util.List;

/**
 * A filter kind a front-end module defines (its filter reads properties the way its protocol does: a JMS selector's
 * header fields, MQTT topic wildcards), so that its filters can be described ({@link FilterSpec.Extension}) and
 * compiled again on another node. Modules register kinds with {@link java.util.ServiceLoader} (a
 * {@code META-INF/services/io.junction.core.filter.FilterKind} line); every node runs the same modules.
 */
public interface FilterKind {

    /** The kind's name, unique among kinds. */
    String name();

    /**
     * Builds the filter a spec of this kind describes.
     *
     * @throws InvalidFilterException when the arguments do not describe a filter of this kind
     */
    MessageFilter compile(List<String> arguments);
}
