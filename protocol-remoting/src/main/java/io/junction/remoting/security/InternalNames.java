package io.junction.remoting.security;

import io.junction.tenancy.Namespaces;
import io.junction.tenancy.ResourceKind;

/**
 * Names only super users reach directly: the store's and SDKs' own ({@link Namespaces#isInternal}, which the policy
 * also refuses) and, as topics, this broker's cluster and broker names. Ordinary clients reach what they need of them
 * through the rules of {@link RequestPermissions}.
 */
final class InternalNames {
    private InternalNames() {
    }

    static boolean reserved(final ResourceKind kind, final String name, final String clusterName,
                            final String brokerName) {
        // The store's and SDKs' names are the policy's rule too; this check also covers demands that never reach the
        // policy (a producer group only needs to lie in the caller's namespace), and adds this broker's own names.
        return Namespaces.isInternal(kind, name)
                || kind == ResourceKind.TOPIC && name != null && (name.equals(clusterName) || name.equals(brokerName));
    }
}
