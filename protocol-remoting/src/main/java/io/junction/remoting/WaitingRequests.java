package io.junction.remoting;

import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.security.Admission;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The long polls (pull, POP) waiting on each connection, so that they end with it (the store's parked reads are freed
 * and a parked POP takes nothing for nobody) and, with security on, a change of their user answers them at once
 * instead of when messages come or the poll times out. Each is answered once: by whichever comes first, the change
 * or the poll's own result (then dropped, and the store's read given up).
 */
final class WaitingRequests {
    private static final AttributeKey<Set<Waiting>> WAITING = AttributeKey.valueOf("junction.remoting.waiting");

    /** One parked request and who it is for. */
    static final class Waiting {
        private final Channel channel;
        private final RemotingCommand request;
        private final Admission admission;
        private final CompletableFuture<RemotingCommand> answer;
        private final AtomicBoolean answered = new AtomicBoolean();

        private Waiting(final Channel channel, final RemotingCommand request, final Admission admission,
                        final CompletableFuture<RemotingCommand> answer) {
            this.channel = channel;
            this.request = request;
            this.admission = admission;
            this.answer = answer;
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

        /** Gives the poll up (answered otherwise, or nobody left to answer): the store stops waiting for it. */
        void cancel() {
            answer.cancel(false);
        }
    }

    private WaitingRequests() {
    }

    /**
     * Records a request that waits for messages (on the connection's event loop), until its answer or its connection
     * ends.
     *
     * @param admission the request's verdict, null with security off
     */
    static Waiting park(final Channel channel, final RemotingCommand request, final Admission admission,
                        final CompletableFuture<RemotingCommand> answer) {
        Set<Waiting> all = channel.attr(WAITING).get();
        if (all == null) {
            final Set<Waiting> created = ConcurrentHashMap.newKeySet();
            all = channel.attr(WAITING).setIfAbsent(created);
            if (all == null) {
                all = created;
            }
        }
        final Waiting waiting = new Waiting(channel, request, admission, answer);
        all.add(waiting);
        return waiting;
    }

    /** The requests waiting on {@code channel} for user {@code name}. */
    static List<Waiting> of(final Channel channel, final String name) {
        final Set<Waiting> all = channel.attr(WAITING).get();
        final List<Waiting> out = new ArrayList<>();
        if (all != null) {
            for (Waiting w : all) {
                if (w.admission != null && name.equals(w.admission.principal().name())) {
                    out.add(w);
                }
            }
        }
        return out;
    }

    /** Gives up every poll still waiting on a closed connection. */
    static void closed(final Channel channel) {
        final Set<Waiting> all = channel.attr(WAITING).get();
        if (all != null) {
            for (Waiting w : List.copyOf(all)) {
                if (w.claim()) {
                    w.cancel();
                }
            }
        }
    }
}
