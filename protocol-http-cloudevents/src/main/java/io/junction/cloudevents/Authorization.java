package io.junction.cloudevents;

import io.junction.spi.http.HttpAuthentication;
import io.junction.spi.http.HttpExchange;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Action;
import io.junction.tenancy.Principal;
import io.junction.tenancy.QuotaEnforcer;
import io.junction.tenancy.ResourceKind;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Locale;
import java.util.function.BiConsumer;

/**
 * Authenticates each request ({@link HttpAuthentication}: Basic or Bearer; anonymous with security off) and asks the
 * broker's access control before each operation, with core names: a tenant's topic {@code orders} is
 * {@code acme%orders}, its subscription {@code s1} the consumer group {@code acme%s1}.
 */
final class Authorization {
    private final AccessControl access;

    Authorization(final AccessControl access) {
        this.access = access;
    }

    /** Authenticates the request, then runs {@code then} with its principal (or answers 401). */
    void authenticate(final HttpExchange exchange, final BiConsumer<HttpExchange, Principal> then) {
        HttpAuthentication.authenticate(access, "http", exchange, then);
    }

    /** Whether credentials are checked (security on): then subscriptions record their owner. */
    boolean enabled() {
        return access.enabled();
    }

    /** The version of the rules (see {@link AccessControl#policyVersion}). */
    long policyVersion() {
        return access.policyVersion();
    }

    /** Takes a publish from the principal's namespace quota (see {@link AccessControl#admitPublish}). */
    QuotaEnforcer.Admission admitPublish(final Principal principal, final int messages,
                                         final long bytes) {
        return access.admitPublish(principal, messages, bytes);
    }

    /** Whether {@code principal} may act on the core resource {@code name}. */
    boolean allows(final Principal principal, final ResourceKind kind, final String name, final Action action) {
        return access.allows(principal, kind, name, action);
    }

    /** Throws a 403 {@link Problem} unless allowed; {@code name} is a core name, reported as the client spells it. */
    void require(final Principal principal, final ResourceKind kind, final String name, final Action action) {
        if (!access.allows(principal, kind, name, action)) {
            final String shown = principal.unqualify(name);
            throw new Problem(HttpResponseStatus.FORBIDDEN, null, action + " on " + kind.name().toLowerCase(
                    Locale.ROOT) + " '" + shown + "' is not allowed");
        }
    }
}
