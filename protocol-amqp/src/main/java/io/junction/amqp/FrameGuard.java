package io.junction.amqp;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.transport.Attach;
import org.apache.qpid.proton.amqp.transport.Begin;
import org.apache.qpid.proton.amqp.transport.Close;
import org.apache.qpid.proton.amqp.transport.Detach;
import org.apache.qpid.proton.amqp.transport.End;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.amqp.transport.Flow;
import org.apache.qpid.proton.amqp.transport.FrameBody;
import org.apache.qpid.proton.amqp.transport.Open;
import org.apache.qpid.proton.amqp.transport.Transfer;
import org.apache.qpid.proton.engine.impl.ProtocolTracer;
import org.apache.qpid.proton.framing.TransportFrame;

/**
 * Checks the order of the frames a client sends before proton-j acts on them: proton-j trusts its peer (a frame on a
 * channel that was never begun is ignored or fails deep inside the engine). A violation is remembered and thrown as
 * {@link Violation} out of the transport's input processing; the connection then closes with its condition.
 *
 * <p>Rules: OPEN first and once, on channel 0, with a max-frame-size of at least 512; BEGIN on a new channel not above
 * our channel-max, never answering a BEGIN we did not send; every other session frame only on a begun channel; a
 * link handle attached once, and TRANSFER, FLOW and DETACH only on attached handles.
 */
final class FrameGuard implements ProtocolTracer {
    /** AMQP's MIN-MAX-FRAME-SIZE. */
    static final int MIN_MAX_FRAME_SIZE = 512;

    private final int channelMax;
    private boolean opened;
    private boolean closed;
    /** Attached handles per begun channel. */
    private final Map<Integer, Set<Long>> channels = new HashMap<>();
    private ErrorCondition violation;

    /** A frame out of order; carries the condition the connection closes with. */
    static final class Violation extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient ErrorCondition condition;

        Violation(final ErrorCondition condition) {
            super(condition.getDescription(), null, false, false);
            this.condition = condition;
        }

        ErrorCondition condition() {
            return condition;
        }
    }

    FrameGuard(final int channelMax) {
        this.channelMax = channelMax;
    }

    /** The first violation seen, or null. */
    ErrorCondition violation() {
        return violation;
    }

    @Override
    public void receivedFrame(final TransportFrame frame) {
        if (violation != null) {
            throw new Violation(violation);
        }
        final FrameBody body = frame.getBody();
        final int channel = frame.getChannel();
        if (body instanceof Open open) {
            if (opened) {
                fail(AmqpErrors.ILLEGAL_STATE, "second OPEN");
            }
            if (channel != 0) {
                fail(AmqpErrors.FRAMING_ERROR, "OPEN on channel " + channel);
            }
            if (open.getMaxFrameSize() != null && open.getMaxFrameSize().longValue() < MIN_MAX_FRAME_SIZE) {
                fail(AmqpErrors.FRAME_SIZE_TOO_SMALL, "max-frame-size " + open.getMaxFrameSize()
                        + " is below the minimum of " + MIN_MAX_FRAME_SIZE);
            }
            opened = true;
            return;
        }
        if (!opened) {
            fail(AmqpErrors.FRAMING_ERROR, "frame before OPEN: " + name(body));
        }
        if (closed) {
            fail(AmqpErrors.ILLEGAL_STATE, "frame after CLOSE: " + name(body));
        }
        if (body instanceof Close) {
            closed = true;
            return;
        }
        if (body instanceof Begin begin) {
            if (channel > channelMax) {
                fail(AmqpErrors.FRAMING_ERROR, "channel " + channel + " is above channel-max " + channelMax);
            }
            if (begin.getRemoteChannel() != null) {
                fail(AmqpErrors.ILLEGAL_STATE, "BEGIN answers a session the broker never began");
            }
            if (channels.putIfAbsent(channel, new HashSet<>()) != null) {
                fail(AmqpErrors.ILLEGAL_STATE, "channel " + channel + " is already begun");
            }
            return;
        }
        final Set<Long> handles = channels.get(channel);
        if (handles == null) {
            fail(AmqpErrors.FRAMING_ERROR, name(body) + " on unopened channel " + channel);
        }
        if (body instanceof End) {
            channels.remove(channel);
        } else if (body instanceof Attach attach) {
            if (!handles.add(attach.getHandle().longValue())) {
                fail(AmqpErrors.ILLEGAL_STATE, "handle " + attach.getHandle() + " is already attached");
            }
        } else if (body instanceof Detach detach) {
            if (!handles.remove(detach.getHandle().longValue())) {
                fail(AmqpErrors.UNATTACHED_HANDLE, "DETACH of unattached handle " + detach.getHandle());
            }
        } else if (body instanceof Transfer transfer) {
            if (!handles.contains(transfer.getHandle().longValue())) {
                fail(AmqpErrors.UNATTACHED_HANDLE, "TRANSFER on unattached handle " + transfer.getHandle());
            }
        } else if (body instanceof Flow flow) {
            if (flow.getHandle() != null && !handles.contains(flow.getHandle().longValue())) {
                fail(AmqpErrors.UNATTACHED_HANDLE, "FLOW on unattached handle " + flow.getHandle());
            }
        }
    }

    @Override
    public void sentFrame(final TransportFrame frame) {
        // only what the client sends is checked
    }

    private void fail(final Symbol condition, final String description) {
        violation = AmqpErrors.of(condition, description);
        throw new Violation(violation);
    }

    private static String name(final FrameBody body) {
        return body == null ? "empty frame" : body.getClass().getSimpleName().toUpperCase(Locale.ROOT);
    }
}
