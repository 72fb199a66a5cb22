package io.junction.amqp;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.transport.ErrorCondition;
import org.apache.qpid.proton.engine.Connection;
import org.apache.qpid.proton.engine.Delivery;
import org.apache.qpid.proton.engine.Endpoint;
import org.apache.qpid.proton.engine.EndpointState;
import org.apache.qpid.proton.engine.Link;
import org.apache.qpid.proton.engine.Sender;
import org.apache.qpid.proton.engine.Session;

/**
 * The AMQP endpoints of one connection (connection, sessions, links) and what lives exactly as long as the
 * connection: its links' handlers, transactions, temporary topics, and the per-connection codec and encode buffer.
 */
final class Endpoints {
    static final Symbol ANONYMOUS_RELAY = Symbol.valueOf("ANONYMOUS-RELAY");
    static final Symbol DELAYED_DELIVERY = Symbol.valueOf("DELAYED_DELIVERY");
    static final Symbol SHARED_SUBS = Symbol.valueOf("SHARED-SUBS");
    /** Longest a detach, end or close waits for its links to settle (see {@link #afterSettled}). */
    static final long SETTLE_TIMEOUT_MS = 10_000;

    private final AmqpConnection connection;
    private final AmqpBroker broker;
    private final Connection proton;
    private final LinkAttacher attacher;
    private final AmqpMessageMapping mapping = new AmqpMessageMapping();
    private final GrowableBuffer encodeBuffer = new GrowableBuffer(4096);
    private final Map<Link, LinkHandler> links = new LinkedHashMap<>();
    /** The links as operators see them, republished whole on every change so any thread may read it. */
    private volatile List<String> linkDescriptions = List.of();
    private final Map<Binary, LocalTransaction> transactions = new HashMap<>();
    private final List<String> temporaryTopics = new ArrayList<>();
    /** Set when the connection opens (its user is known then). */
    private LinkAuthorization authorization;
    private boolean lost;

    Endpoints(final AmqpConnection connection, final AmqpBroker broker, final Connection proton) {
        this.connection = connection;
        this.broker = broker;
        this.proton = proton;
        this.attacher = new LinkAttacher(this);
    }

    AmqpConnection connection() {
        return connection;
    }

    /**
     * The core topic of an address in the connection's namespace (the authenticated user's tenant: {@code orders} of
     * tenant acme is {@code acme%orders}, the name a RocketMQ client of namespace acme uses); null when too long.
     */
    String core(final String address) {
        final String core = AddressNames.toCore(address);
        final String qualified = core == null ? null : inNamespace(core);
        return qualified == null || qualified.length() > AddressNames.MAX_CORE_LENGTH ? null : qualified;
    }

    /**
     * A core name (group, temporary topic) made by the front-end, in the connection's namespace; such names leave
     * room for the longest namespace ({@link LinkAttacher#groupName}).
     */
    String inNamespace(final String name) {
        return connection().principal().qualify(name);
    }

    AmqpBroker broker() {
        return broker;
    }

    AmqpMessageMapping mapping() {
        return mapping;
    }

    GrowableBuffer encodeBuffer() {
        return encodeBuffer;
    }

    Map<Binary, LocalTransaction> transactions() {
        return transactions;
    }

    /** The client's container id (its JMS client id when it set one). */
    String containerId() {
        final String id = proton.getRemoteContainer();
        return id == null ? "" : id;
    }

    boolean lost() {
        return lost;
    }

    /** What the connection's user may do with its links under the rules in force. */
    LinkAuthorization authorization() {
        return authorization;
    }

    /** Answers the client's OPEN (its user authenticated). */
    void open() {
        authorization = new LinkAuthorization(this);
        proton.setContainer("junction");
        proton.setOfferedCapabilities(new Symbol[] {ANONYMOUS_RELAY, DELAYED_DELIVERY, SHARED_SUBS});
        proton.open();
    }

    void sessionOpened(final Session session) {
        if (session.getLocalState() == EndpointState.UNINITIALIZED) {
            // Flow control is per link (credit, bounded in-flight bytes); the session window stays open.
            session.setIncomingCapacity(Integer.MAX_VALUE);
            session.open();
        }
    }

    void sessionClosed(final Session session) {
        final List<CompletableFuture<?>> settling = new ArrayList<>();
        for (Link link : new ArrayList<>(links.keySet())) {
            if (link.getSession() == session) {
                settling.add(ended(link, false));
            }
        }
        afterSettled(settling, () -> {
            if (session.getLocalState() != EndpointState.CLOSED) {
                session.close();
            }
            freeIfDone(session);
        });
    }

    /**
     * Lets proton forget an endpoint both sides have closed; otherwise a long-lived connection that opens and closes
     * many links or sessions would keep every one of them.
     */
    private static void freeIfDone(final Endpoint endpoint) {
        if (endpoint.getLocalState() == EndpointState.CLOSED && endpoint.getRemoteState() == EndpointState.CLOSED) {
            endpoint.free();
        }
    }

    void linkOpened(final Link link) {
        if (link.getLocalState() == EndpointState.UNINITIALIZED) {
            attacher.attach(link);
        }
    }

    /** Registers the handler of a link the attacher opened. */
    void register(final Link link, final LinkHandler handler) {
        link.setContext(handler);
        links.put(link, handler);
        describeLinks();
    }

    /** The connection's links: "receives from &lt;address&gt;" (a consumer) or "sends to &lt;address&gt;". */
    List<String> linkDescriptions() {
        return linkDescriptions;
    }

    private void describeLinks() {
        final List<String> described = new ArrayList<>(links.size());
        for (final Link link : links.keySet()) {
            if (link instanceof Sender) {
                described.add("receives from " + (link.getRemoteSource() == null ? "?"
                        : link.getRemoteSource().getAddress()));
            } else {
                described.add("sends to " + (link.getRemoteTarget() == null ? "(anonymous relay)"
                        : link.getRemoteTarget().getAddress()));
            }
        }
        linkDescriptions = List.copyOf(described);
    }

    void linkEnded(final Link link, final boolean closed) {
        afterSettled(List.of(ended(link, closed)), () -> {
            if (link.getLocalState() != EndpointState.CLOSED) {
                if (closed) {
                    link.close();
                } else {
                    // A detached link stays locally open in proton-j, and a session hands that same object to the
                    // next ATTACH of the name (a durable subscriber coming back on its session), which then never
                    // opens. Freeing it lets the next ATTACH of the name make a new link; the DETACH still goes out.
                    link.detach();
                    link.free();
                    return;
                }
            }
            freeIfDone(link);
        });
    }

    /**
     * Runs {@code answer} (the frame that tells the peer its detach, end or close is done) once the links that ended
     * have settled what they leave behind ({@link LinkHandler#settled}); at once when nothing is pending. A core that
     * does not answer within {@value #SETTLE_TIMEOUT_MS} ms does not keep the client waiting longer.
     */
    private void afterSettled(final List<CompletableFuture<?>> settling, final Runnable answer) {
        final CompletableFuture<Void> all = CompletableFuture.allOf(settling.toArray(CompletableFuture[]::new));
        if (all.isDone()) {
            answer.run();
            return;
        }
        all.orTimeout(SETTLE_TIMEOUT_MS, TimeUnit.MILLISECONDS).whenCompleteAsync((v, e) -> {
            answer.run();
            connection.requestFlush();
        }, connection.executor());
    }

    /** The broker ends a link with an error (the client's link is detached, closed). */
    void endLink(final Link link, final ErrorCondition condition) {
        ended(link, false);
        link.setCondition(condition);
        link.close();
        connection.requestFlush();
    }

    private CompletableFuture<?> ended(final Link link, final boolean closed) {
        final LinkHandler handler = links.remove(link);
        if (handler == null) {
            return CompletableFuture.completedFuture(null);
        }
        describeLinks();
        link.setContext(null);
        handler.onEnd(closed);
        return handler.settled();
    }

    void flow(final Link link) {
        final LinkHandler handler = links.get(link);
        if (handler != null) {
            handler.onFlow();
        }
    }

    void delivery(final Delivery delivery) {
        final LinkHandler handler = links.get(delivery.getLink());
        if (handler != null) {
            handler.onDelivery(delivery);
        } else if (delivery.remotelySettled()) {
            delivery.settle();
        }
    }

    void writable() {
        for (LinkHandler handler : new ArrayList<>(links.values())) {
            handler.onWritable();
        }
    }

    /**
     * Ends, with {@code amqp:unauthorized-access}, every consumer link whose topic {@code mayReceive} no longer
     * allows (the rules changed). The connection's own temporary topics stay its own.
     */
    void endConsumersNotAllowed(final Predicate<String> mayReceive) {
        for (Map.Entry<Link, LinkHandler> e : new ArrayList<>(links.entrySet())) {
            if (e.getValue() instanceof ConsumerLink c && !isTemporaryTopic(c.plan().topic())
                    && !mayReceive.test(c.plan().topic())) {
                endLink(e.getKey(), AmqpErrors.of(AmqpErrors.UNAUTHORIZED, "no longer allowed to receive from "
                        + c.plan().address()));
            }
        }
    }

    /** A temporary topic this connection created; deleted when the connection ends. */
    void addTemporaryTopic(final String topic) {
        temporaryTopics.add(topic);
    }

    /** Whether {@code topic} is a temporary topic this connection created. */
    boolean isTemporaryTopic(final String topic) {
        return temporaryTopics.contains(topic);
    }

    void removeTemporaryTopic(final String topic) {
        if (temporaryTopics.remove(topic)) {
            broker.deleteTemporary(topic);
        }
    }

    /**
     * The peer closed the connection: every link ends, then {@code answer} (the CLOSE) once they have settled, as for a
     * session's end.
     */
    void remoteClosed(final Runnable answer) {
        afterSettled(connectionLost(), answer);
    }

    /**
     * The connection ended (closed by either side or dropped): every link ends, open transactions roll back. Returns
     * what the links are still settling.
     */
    List<CompletableFuture<?>> connectionLost() {
        if (lost) {
            return List.of();
        }
        lost = true;
        if (authorization != null) {
            authorization.stop();
        }
        final List<CompletableFuture<?>> settling = new ArrayList<>();
        for (Link link : new ArrayList<>(links.keySet())) {
            settling.add(ended(link, false));
        }
        for (LocalTransaction txn : transactions.values()) {
            txn.rollback();
        }
        transactions.clear();
        for (String topic : temporaryTopics) {
            broker.deleteTemporary(topic);
        }
        temporaryTopics.clear();
        return settling;
    }
}
