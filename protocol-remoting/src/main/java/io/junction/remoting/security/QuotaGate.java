package io.junction.remoting.security;

import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Principal;
import io.junction.tenancy.QuotaEnforcer;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

/**
 * Applies the namespace quotas to admitted requests: a connection counts against the namespace of its first admitted
 * request (released when it closes), and every send takes its messages and body bytes from the namespace's publish
 * budget. A refusal is {@code SYSTEM_BUSY} (2) with a {@code [QUOTA]} remark: the code RocketMQ brokers use for flow
 * control, which producers already treat as "try again later".
 */
public final class QuotaGate {

    private static final AttributeKey<Principal> COUNTED = AttributeKey.valueOf("junction.remoting.quota-principal");

    private final AccessControl access;

    public QuotaGate(final AccessControl access) {
        this.access = access;
    }

    /** Null when the request may go on; otherwise why not (the caller answers SYSTEM_BUSY with it). */
    public String refusal(final Channel channel, final RemotingCommand request, final Principal principal) {
        if (principal == null) {
            return null;
        }
        if (channel.attr(COUNTED).get() == null) {
            if (!access.connectionOpened(principal)) {
                return "[QUOTA] namespace " + principal.namespace() + " has its maximum number of connections open";
            }
            if (channel.attr(COUNTED).setIfAbsent(principal) == null) {
                channel.closeFuture().addListener(f -> access.connectionClosed(principal));
            } else {
                access.connectionClosed(principal); // another request of the channel counted it first
            }
        }
        final int code = request.code();
        if (code != RequestCode.SEND_MESSAGE && code != RequestCode.SEND_MESSAGE_V2
                && code != RequestCode.SEND_BATCH_MESSAGE) {
            return null;
        }
        final byte[] body = request.body() == null ? new byte[0] : request.body();
        final int messages = code == RequestCode.SEND_BATCH_MESSAGE ? batchSize(body) : 1;
        final QuotaEnforcer.Admission admission = access.admitPublish(principal, messages, body.length);
        return admission.admitted() ? null : "[QUOTA] publish quota of namespace " + principal.namespace()
                + " exceeded; retry in " + admission.retryAfterMillis() + " ms";
    }

    /** Messages in a batch body: each encoded message starts with its total size (a big-endian int). */
    static int batchSize(final byte[] body) {
        int n = 0;
        int at = 0;
        while (at + 4 <= body.length) {
            final int size = (body[at] & 0xFF) << 24 | (body[at + 1] & 0xFF) << 16 | (body[at + 2] & 0xFF) << 8
                    | body[at + 3] & 0xFF;
            if (size <= 0) {
                break;
            }
            n++;
            at += size;
        }
        return Math.max(1, n);
    }
}
