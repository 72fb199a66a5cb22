package io.junction.grpc;

import io.grpc.Context;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Action;
import io.junction.tenancy.PolicyWatch;
import io.junction.tenancy.PolicyWatcher;
import io.junction.tenancy.Principal;
import io.junction.tenancy.ResourceKind;
import java.util.function.Supplier;

/**
 * The caller of one call and the rules it is held to, in the call's {@link Context} (absent with security off), for
 * the service's long-lived work to follow rule changes: a ReceiveMessage that long-polled is decided again before its
 * messages go out, a Telemetry session routes transaction check-backs only to producers still allowed to publish the
 * topic, and ends when its user is deleted or disabled.
 */
final class CallAccess {
    static final Context.Key<CallAccess> KEY = Context.key("junction.grpc.call-access");

    private final AccessControl access;
    private final Principal principal;
    /** Set when the call's request was admitted: why it would be refused now, or null. */
    private volatile Supplier<String> recheck;

    CallAccess(final AccessControl access, final Principal principal) {
        this.access = access;
        this.principal = principal;
    }

    /** The calling call's access, or null (security off). */
    static CallAccess current() {
        return KEY.get();
    }

    /** The request was admitted; {@code recheck} decides it again under the rules in force when called. */
    void admitted(final Supplier<String> recheck) {
        this.recheck = recheck;
    }

    /** Why the call's request is refused under the rules in force now (they changed since it was admitted), or null. */
    String refusalNow() {
        final Supplier<String> r = recheck;
        return r == null ? null : r.get();
    }

    /** The caller's user name. */
    String user() {
        return principal.name();
    }

    /** Whether the caller may publish to the core topic now. */
    boolean mayPublish(final String coreTopic) {
        return access.allows(principal, ResourceKind.TOPIC, coreTopic, Action.PUB);
    }

    /** Has {@code watcher} follow the caller's rules (see {@link AccessControl#watch}). */
    PolicyWatch watch(final PolicyWatcher watcher) {
        return access.watch(principal, watcher);
    }
}
