package io.junction.tenancy;

import java.util.Objects;

/**
 * An authenticated caller.
 *
 * @param name      the user (or client) name; {@link #ANONYMOUS_NAME} when no credentials were checked
 * @param namespace the tenant the caller acts in; resource names are resolved inside it
 * @param superUser whether the caller administers the whole broker: every namespace, every action
 */
public record Principal(String name, String namespace, boolean superUser) {

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

    /** An ordinary (not super) user. */
    public Principal(final String name, final String namespace) {
        this(name, namespace, false);
    }

    /** Whether the caller is in the default namespace. */
    public boolean inDefaultNamespace() {
        return DEFAULT_NAMESPACE.equals(namespace);
    }

    /**
     * The core name of {@code name} in this caller's namespace, for front-ends whose clients name resources without a
     * namespace (MQTT, AMQP, HTTP): see {@link Namespaces#qualify}.
     */
    public String qualify(final String name) {
        return Namespaces.qualify(namespace, name);
    }

    /** The name as this caller's clients spell it: the inverse of {@link #qualify} (unchanged when not qualified). */
    public String unqualify(final String coreName) {
        return Namespaces.unqualify(namespace, coreName);
    }
}
