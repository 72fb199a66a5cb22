package io.junction.grpc;

import apache.rocketmq.v2.Resource;
import io.junction.tenancy.Namespaces;

/**
 * Where a gRPC {@link Resource} meets the core's names. A 5.x client with a namespace sends every topic and group as
 * {@code Resource{resource_namespace = ns, name}} (it never wraps the name itself), and expects names back in the same
 * shape; the core knows the resource as {@code ns%name}, the convention every front-end shares.
 *
 * <p>Only the resource's own namespace decides the core name: the {@code x-mq-namespace} header is not used, so a
 * header and a resource that disagree cannot make a name point elsewhere. Whether the caller may use that name is the
 * access policy's call (it refuses core names outside the caller's namespace).
 */
final class ResourceNames {

    private ResourceNames() {
    }

    /**
     * The core name of {@code r}: its name when it has no namespace (as before namespaces), else {@code ns%name};
     * empty when the name is, so callers' "missing" checks work on core names.
     */
    static String core(final Resource r) {
        final String namespace = r.getResourceNamespace();
        return namespace.isEmpty() || r.getName().isEmpty() ? r.getName()
                : Namespaces.qualify(namespace, r.getName());
    }

    /** {@code coreName} as a client of {@code namespace} knows it: the namespace apart, the name unwrapped. */
    static Resource shown(final String namespace, final String coreName) {
        if (namespace.isEmpty()) {
            return Resource.newBuilder().setName(coreName).build();
        }
        return Resource.newBuilder().setResourceNamespace(namespace)
                .setName(Namespaces.unqualify(namespace, coreName)).build();
    }
}
