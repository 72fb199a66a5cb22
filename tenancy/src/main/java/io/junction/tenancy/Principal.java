package io.junction.tenancy;

import java.util.Objects;

/**
 * An authenticated caller.
 *
 * @param name      the user (or client) name; {@link #ANONYMOUS_NAME} when no credentials were checked
 * @param namespace the tenant the caller acts in; resource names are resolved inside it
 */
public record Principal(String name, String namespace) {

    /** The namespace of callers that belong to no tenant; with auth off, everyone is in it. */
    public static final String DEFAULT_NAMESPACE = "default";

    /** The name given to callers whose credentials were not checked. */
    public static final String ANONYMOUS_NAME = "anonymous";

    /** An unauthenticated caller in the default namespace. */
    public static final Principal ANONYMOUS = new Principal(ANONYMOUS_NAME, DEFAULT_NAMESPACE);

    public Principal {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(namespace, "namespace");
    }

    /** Whether the caller is in the default namespace. */
    public boolean inDefaultNamespace() {
        return DEFAULT_NAMESPACE.equals(namespace);
    }
}
