package io.junction.cloudevents;

import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Action;
import io.junction.tenancy.Principal;
import io.junction.tenancy.ResourceKind;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Asks the broker's access control before each operation. HTTP requests carry no credentials yet, so every request
 * acts as {@link Principal#ANONYMOUS} (the open policy allows it; a restrictive policy refuses with 403).
 */
final class Authorization {
    private final AccessControl access;

    Authorization(final AccessControl access) {
        this.access = access;
    }

    /** Throws a 403 {@link Problem} unless allowed. */
    void require(final ResourceKind kind, final String name, final Action action) {
        if (!access.allows(Principal.ANONYMOUS, kind, name, action)) {
            throw new Problem(HttpResponseStatus.FORBIDDEN, null, action + " on " + kind.name().toLowerCase(
                    java.util.Locale.ROOT) + " '" + name + "' is not allowed");
        }
    }
}
