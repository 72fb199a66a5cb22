package io.junction.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.TelemetryCommand;
import io.grpc.ForwardingServerCallListener;
import io.grpc.ServerCall;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Action;
import io.junction.tenancy.Principal;
import io.junction.tenancy.QuotaEnforcer;
import java.util.List;
import java.util.Locale;

/**
 * Holds each request message of an authenticated call to {@link RpcPermissions} before the service sees it. A denied
 * message ends the call with FORBIDDEN and nothing of it reaches the service; a method without a row is denied; a
 * Telemetry Settings command reaches it without the topics the caller may not use. Names are checked as core names
 * ({@link ResourceNames#core}), which is where the policy enforces namespaces.
 */
final class AuthorizingListener<Q, R> extends ForwardingServerCallListener.SimpleForwardingServerCallListener<Q> {
    private final RefusableCall<Q, R> call;
    private final AccessControl access;
    private final Principal principal;
    private final ConnectionAuth connection;
    private final String method;
    private final CallAccess callAccess;
    /** Listener callbacks of one call are serialized, so a plain field is enough. */
    private boolean refused;

    AuthorizingListener(final ServerCall.Listener<Q> served, final RefusableCall<Q, R> call,
                        final AccessControl access, final Principal principal, final ConnectionAuth connection,
                        final CallAccess callAccess) {
        super(served);
        this.call = call;
        this.access = access;
        this.principal = principal;
        this.connection = connection;
        this.method = call.getMethodDescriptor().getFullMethodName();
        this.callAccess = callAccess;
    }

    @Override
    public void onMessage(final Q request) {
        if (refused) {
            return;
        }
        final long version = access.policyVersion(); // before deciding: see AccessControl#policyVersion
        final String denial = denial(request);
        if (denial != null) {
            refused = true;
            call.refuse(RefusalResponses.of(call.getMethodDescriptor(), Code.FORBIDDEN, denial));
            return;
        }
        if (request instanceof SendMessageRequest send) {
            long bytes = 0;
            for (apache.rocketmq.v2.Message m : send.getMessagesList()) {
                bytes += m.getBody().size();
            }
            final QuotaEnforcer.Admission admission = access.admitPublish(principal, send.getMessagesCount(), bytes);
            if (!admission.admitted()) {
                refused = true;
                call.refuse(RefusalResponses.of(call.getMethodDescriptor(), Code.TOO_MANY_REQUESTS,
                        "publish quota of the namespace exceeded; retry in " + admission.retryAfterMillis() + " ms"));
                return;
            }
        }
        // A call that waits (a long-polling receive) is decided again if the rules change before it answers.
        callAccess.admitted(() -> access.policyVersion() == version ? null : denial(request));
        super.onMessage(request instanceof TelemetryCommand command ? settingsAllowed(command) : request);
    }

    @SuppressWarnings("unchecked")
    private Q settingsAllowed(final TelemetryCommand command) {
        return (Q) RpcPermissions.withoutDenied(command, need -> {
            final String core = ResourceNames.core(need.resource());
            return !core.isEmpty() && allowed(need, core);
        });
    }

    @Override
    public void onHalfClose() {
        if (!refused) {
            super.onHalfClose(); // a refused unary call must not run with no request
        }
    }

    /** Why {@code request} is denied (told to the client), or null when it is allowed. */
    private String denial(final Q request) {
        final List<RpcPermissions.Need> needs = RpcPermissions.needs(method, request);
        if (needs == null) {
            return "access denied: " + method + " is not open to users";
        }
        for (RpcPermissions.Need need : needs) {
            final String core = ResourceNames.core(need.resource());
            if (core.isEmpty()) {
                continue; // nothing named: the service answers that with its own code (ILLEGAL_TOPIC, ...)
            }
            if (!allowed(need, core)) {
                return "access denied: " + principal.name() + " may not " + String.join(" or ",
                        need.anyOf().stream().map(Action::name).toList()) + " " + need.kind().name().toLowerCase(Locale.ROOT)
                        + " " + need.resource().getName()
                        + (need.resource().getResourceNamespace().isEmpty() ? ""
                        : " in namespace " + need.resource().getResourceNamespace());
            }
        }
        return null;
    }

    private boolean allowed(final RpcPermissions.Need need, final String core) {
        if (need.anyOf().size() == 1) {
            return access.allows(principal, need.kind(), core, need.anyOf().get(0));
        }
        // Any of several (a route): ask first what granted it on this connection last time, so a producer's or a
        // consumer's periodic route refresh does not count a denial of the action it never needed.
        final Action first = connection != null && RpcPermissions.isRouteQuery(method) ? connection.routeAction()
                : need.anyOf().get(0);
        if (need.anyOf().contains(first) && access.allows(principal, need.kind(), core, first)) {
            return true;
        }
        for (Action a : need.anyOf()) {
            if (a != first && access.allows(principal, need.kind(), core, a)) {
                if (connection != null && RpcPermissions.isRouteQuery(method)) {
                    connection.routeAction(a);
                }
                return true;
            }
        }
        return false;
    }
}
