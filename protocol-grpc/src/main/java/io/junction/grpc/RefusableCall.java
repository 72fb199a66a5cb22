package io.junction.grpc;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;

/**
 * A call the access check may end with a refusal after the service has started writing to it (a Telemetry stream
 * whose later Settings are denied). A {@link ServerCall} is not thread-safe and the service writes Telemetry commands
 * from other threads (transaction check-backs), so every write goes through this object's lock.
 */
final class RefusableCall<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
    private boolean headersSent;

    RefusableCall(final ServerCall<Q, R> call) {
        super(call);
    }

    @Override
    public synchronized void sendHeaders(final Metadata headers) {
        headersSent = true;
        super.sendHeaders(headers);
    }

    @Override
    public synchronized void sendMessage(final R message) {
        super.sendMessage(message);
    }

    @Override
    public synchronized void close(final Status status, final Metadata trailers) {
        super.close(status, trailers);
    }

    /** Answers {@code response} and ends the call (gRPC OK: the refusal is in the response, as the client expects). */
    synchronized void refuse(final R response) {
        refuse(delegate(), headersSent, response);
        headersSent = true;
    }

    /**
     * Ends {@code call} with {@code response}; when the method's response cannot carry a status (null), with
     * {@code PERMISSION_DENIED} instead. A call that is already closed is left as it is.
     */
    static <R> void refuse(final ServerCall<?, R> call, final boolean headersSent, final R response) {
        try {
            if (response == null) {
                call.close(Status.PERMISSION_DENIED.withDescription("access denied"), new Metadata());
                return;
            }
            if (!headersSent) {
                call.sendHeaders(new Metadata());
            }
            call.sendMessage(response);
            call.close(Status.OK, new Metadata());
        } catch (IllegalStateException alreadyClosed) {
            // the client went away or the service ended the call first: nothing left to refuse
        }
    }
}
