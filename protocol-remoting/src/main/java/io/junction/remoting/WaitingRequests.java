package io.junction.remoting;

import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.security.Admission;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The long polls (pull, POP) waiting on each connection with security on, so that a change of their user answers
 * them at once instead of when messages come or the poll times out. Each is answered once: by whichever comes first,
 * the change or the poll's own result (which is then dropped: a pull's offset has not moved, and what a POP took
 * becomes visible again after its invisible time).
 */
final class WaitingRequests {
    private static final AttributeKey<Set<Waiting>> WAITING = AttributeKey.valueOf("junction.remoting.waiting");

    /** One parked request and who it is for. */
    static final class Waiting {
        private final Channel channel;
        private final RemotingCommand request;
        private final Admission admission;
        private final AtomicBoolean answered = new AtomicBoolean();

        private Waiting(final Channel channel, final RemotingCommand request, final Admission admission) {
            this.channel = channel;
            this.request = request;
            this.admission = admission;
        }

        RemotingCommand request() {
            return request;
        }

        Admission admission() {
            return admission;
        }

        /** Takes the right to answer; false when the other side took it already. Forgets the request either way. */
        boolean claim() {
            final Set<Waiting> all = channel.attr(WAITING).get();
            if (all != null) {
                all.remove(this);
            }
            return answered.compareAndSet(false, true);
        }
    }

    private WaitingRequests() {
    }

    /** Records a request that waits for messages (any thread). */
    static Waiting park(final Channel channel, final RemotingCommand request, final Admission admission) {
        Set<Waiting> all = channel.attr(WAITING).get();
        if (all == null) {
            final Set<Waiting> created = ConcurrentHashMap.newKeySet();
            all = channel.attr(WAITING).setIfAbsent(created);
            if (all == null) {
                all = created;
            }
        }
        final Waiting waiting = new Waiting(channel, request, admission);
        all.add(waiting);
        return waiting;
    }

    /** The requests waiting on {@code channel} for user {@code name}. */
    static List<Waiting> of(final Channel channel, final String name) {
        final Set<Waiting> all = channel.attr(WAITING).get();
        final List<Waiting> out = new ArrayList<>();
        if (all != null) {
            for (Waiting w : all) {
                if (w.admission.principal() != null && name.equals(w.admission.principal().name())) {
                    out.add(w);
                }
            }
        }
        return out;
    }
}
