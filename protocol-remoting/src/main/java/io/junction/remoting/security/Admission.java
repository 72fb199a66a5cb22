package io.junction.remoting.security;

import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.tenancy.Principal;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The verdict on one request: let it through (and how to narrow its response), or refuse it with a Remoting code
 * and a remark for the client.
 */
public final class Admission {
    private final Principal principal;
    private final int code;
    private final String remark;
    private final Permission.ResponseFilter filter;
    private final Predicate<Demand> visible;
    /** Decides the request again under the rules in force when its answer goes out; null when that is not needed. */
    private final Supplier<String> recheck;

    private Admission(final Principal principal, final int code, final String remark,
                      final Permission.ResponseFilter filter, final Predicate<Demand> visible,
                      final Supplier<String> recheck) {
        this.principal = principal;
        this.code = code;
        this.remark = remark;
        this.filter = filter;
        this.visible = visible;
        this.recheck = recheck;
    }

    static Admission allow(final Principal principal, final Permission.ResponseFilter filter,
                           final Predicate<Demand> visible) {
        return new Admission(principal, ResponseCode.SUCCESS, null, filter, visible, null);
    }

    /**
     * Allowed now; {@code recheck} tells, when the answer is ready, why the request is refused under the rules in
     * force then (null: still allowed).
     */
    static Admission allowUntilChanged(final Principal principal, final Permission.ResponseFilter filter,
                                       final Predicate<Demand> visible, final Supplier<String> recheck) {
        return new Admission(principal, ResponseCode.SUCCESS, null, filter, visible, recheck);
    }

    static Admission refuse(final Principal principal, final String remark) {
        return new Admission(principal, ResponseCode.NO_PERMISSION, remark, null, null, null);
    }

    /**
     * For a request that waited for messages (a long poll): why it is refused after all, because the rules changed
     * while it waited and no longer allow it; null when it may have its answer.
     */
    public String refusalNow() {
        return recheck == null ? null : recheck.get();
    }

    public boolean allowed() {
        return code == ResponseCode.SUCCESS;
    }

    /** The refusal's response code (RocketMQ answers failed authentication and authorization with NO_PERMISSION). */
    public int code() {
        return code;
    }

    public String remark() {
        return remark;
    }

    /** Who is asking; null when authentication failed. */
    public Principal principal() {
        return principal;
    }

    /** The response as this caller may see it. */
    public RemotingCommand shape(final RemotingCommand response) {
        return filter == null || response == null ? response : filter.apply(response, visible);
    }
}
