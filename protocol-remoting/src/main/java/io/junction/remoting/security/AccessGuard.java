package io.junction.remoting.security;

import io.junction.remoting.protocol.RemotingCommand;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Action;
import io.junction.tenancy.AuthResult;
import io.junction.tenancy.Authorizer;
import io.junction.tenancy.Namespaces;
import io.junction.tenancy.Principal;
import io.junction.tenancy.ResourceKind;
import io.junction.tenancy.SignatureVerifier;
import io.junction.tenancy.SignedRequest;
import io.netty.channel.Channel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authenticates and authorizes one request, on its own: the signature is verified every time (never "this channel
 * signed before"), then each {@link Demand} of the request's {@link Permission} must be met. Only in use with
 * security on; with it off the handler never calls it, so the open broker does no signature work at all.
 */
public final class AccessGuard {
    private static final Logger LOG = LoggerFactory.getLogger(AccessGuard.class);
    private static final String PROTOCOL = "remoting";
    private static final byte[] NOTHING = new byte[0];

    private final SignatureVerifier verifier;
    private final Authorizer authorizer;
    private final RequestPermissions permissions;
    private final String clusterName;
    private final String brokerName;
    /** Whether a name's first segment is a tenant's namespace (then it is not a default-namespace name). */
    private final Predicate<String> isTenant;
    private final LongSupplier policyVersion;

    /**
     * @param isTenant      whether a namespace has users (decides whether {@code x%y} is a default-namespace name)
     * @param policyVersion the version of the rules ({@link AccessControl#policyVersion}): a request that waited for
     *                      messages is decided again when it moved meanwhile
     */
    public AccessGuard(final SignatureVerifier verifier, final Authorizer authorizer, final Predicate<String> isTenant,
                       final LongSupplier policyVersion, final RequestPermissions permissions,
                       final String clusterName, final String brokerName) {
        this.verifier = verifier;
        this.authorizer = authorizer;
        this.isTenant = isTenant;
        this.policyVersion = policyVersion;
        this.permissions = permissions;
        this.clusterName = clusterName;
        this.brokerName = brokerName;
    }

    /** The guard of a broker's access control (which must be enabled). */
    public static AccessGuard of(final AccessControl access, final RequestPermissions permissions,
                                 final String clusterName, final String brokerName) {
        final Predicate<String> isTenant = access.users().<Predicate<String>>map(u -> u::isTenant)
                .orElse(ns -> false);
        return new AccessGuard(access::verify, access::authorize, isTenant, access::policyVersion, permissions,
                clusterName, brokerName);
    }

    /**
     * The verdict on {@code request}. Completes at once unless a demand needs a store look-up; then it completes on
     * a store thread.
     */
    public CompletableFuture<Admission> admit(final Channel channel, final RemotingCommand request) {
        final String accessKey = request.field(SignedContent.ACCESS_KEY);
        final String signature = request.field(SignedContent.SIGNATURE);
        final boolean signed = accessKey != null && !accessKey.isEmpty() && signature != null
                && !signature.isEmpty();
        // Unsigned requests go to the verifier too: it counts them and throttles a host that keeps failing.
        final AuthResult auth = verifier.verify(new SignedRequest(PROTOCOL, accessKey,
                signed ? SignedContent.of(request) : NOTHING, signature, SignedRequest.Encoding.BASE64, null,
                channel.remoteAddress()));
        if (!auth.authenticated()) {
            return CompletableFuture.completedFuture(Admission.refuse(null, authenticationRemark(signed, accessKey,
                    auth.failureReason().orElse(""))));
        }
        final Principal principal = auth.principal().orElseThrow();
        final Permission permission = permissions.of(request.code());
        final Predicate<Demand> visible = d -> visible(principal, d);
        if (principal.superUser()) {
            return CompletableFuture.completedFuture(Admission.allow(principal,
                    permission == null ? null : permission.filter(), visible));
        }
        if (permission == null) {
            return CompletableFuture.completedFuture(Admission.refuse(principal, "[AUTHORIZATION] user "
                    + principal.name() + ": request code " + request.code() + " is for super users only"));
        }
        final long version = policyVersion.getAsLong(); // before deciding: see AccessControl#policyVersion
        return permission.demands().of(request).thenApply(demands -> decide(principal, demands, permission,
                visible, version));
    }

    private Admission decide(final Principal principal, final List<Demand> demands, final Permission permission,
                             final Predicate<Demand> visible, final long version) {
        final String refusal = refusal(principal, demands);
        if (refusal != null) {
            return Admission.refuse(principal, refusal);
        }
        if (!permission.waits()) {
            return Admission.allow(principal, permission.filter(), visible);
        }
        return Admission.allowUntilChanged(principal, permission.filter(), visible,
                () -> policyVersion.getAsLong() == version ? null : refusal(principal, demands));
    }

    /** Why the first unmet demand is unmet, or null when all are met. */
    private String refusal(final Principal principal, final List<Demand> demands) {
        for (Demand d : demands) {
            if (!met(principal, d)) {
                LOG.debug("refused {}: {}", principal.name(), d);
                return "[AUTHORIZATION] user " + principal.name() + ": " + d.describe();
            }
        }
        return null;
    }

    private boolean met(final Principal principal, final Demand d) {
        return switch (d.check()) {
            case SUPER_USER -> false; // super users never get here
            case NAMESPACE -> Namespaces.localName(principal.namespace(), d.name(), isTenant) != null
                    && !InternalNames.reserved(d.kind(), d.name(), clusterName, brokerName);
            case POLICY -> !InternalNames.reserved(d.kind(), d.name(), clusterName, brokerName)
                    && anyAllowed(principal, d);
        };
    }

    private boolean anyAllowed(final Principal principal, final Demand d) {
        for (Action a : d.anyOf()) {
            if (authorizer.authorize(principal, d.kind(), d.name(), a).allowed()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a listing shows a resource. Names of other namespaces are dropped before the policy is asked, so a
     * listing does not count every other tenant's topic as a denial.
     */
    private boolean visible(final Principal principal, final Demand d) {
        if (principal.superUser()) {
            return true;
        }
        if (d.kind() != ResourceKind.CLUSTER && Namespaces.localName(principal.namespace(), d.name(), isTenant) == null) {
            return false;
        }
        return met(principal, d);
    }

    private static String authenticationRemark(final boolean signed, final String accessKey, final String reason) {
        if (!signed) {
            return "[AUTHENTICATION] the request is not signed: this broker requires credentials "
                    + "(an AclClientRPCHook with the user's access key and secret)";
        }
        if ("throttled".equals(reason)) {
            return "[AUTHENTICATION] too many failed authentications from this host; try again later";
        }
        return "[AUTHENTICATION] authentication failed for access key " + accessKey
                + " (unknown or disabled user, or a wrong signature)";
    }
}
