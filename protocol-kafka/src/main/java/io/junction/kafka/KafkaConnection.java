package io.junction.kafka;

import io.junction.spi.clients.ClientRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: decodes each size-delimited frame with kafka-clients' own header and request classes, hands
 * it to {@link KafkaApis}, and writes the responses in request order (Kafka clients match a response to the oldest
 * request in flight).
 *
 * <p>Bad input never reaches a handler: an unknown API key, a version this broker does not serve (ApiVersions aside,
 * which is answered with UNSUPPORTED_VERSION and the supported ranges, as Kafka does), a header or body that does not
 * parse, or an oversize frame closes the connection, as a Kafka broker does. At most
 * {@code kafka.max-pending-requests} requests are in progress; past that the connection is not read until one is
 * answered. Everything here runs on the channel's event loop.
 *
 * <p>Once the client may make requests (at once with security off, after SASL with it on), the connection is listed in
 * the broker's {@link ClientRegistry} under the {@code client.id} of its request headers, with the consumer groups it
 * joins or commits for; an administrator's disconnect closes it, as a Kafka broker closes a connection (Kafka has no
 * message that says why).
 */
final class KafkaConnection extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaConnection.class);

    /** Groups listed per connection at most (a client uses one or a few; the list is for people to read). */
    static final int MAX_LISTED_GROUPS = 16;

    private final KafkaApis apis;
    private final int maxPending;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final ClientRegistry clients;
    /** This connection in the broker's list of clients, once it may make requests. */
    private ClientRegistry.Registration listed;
    /** The consumer groups this connection's requests named (read by the console from any thread). */
    private final Set<String> groups = ConcurrentHashMap.newKeySet();
    /** The client's software as its ApiVersions request names it ({@code apache-kafka-java 3.9.0}), or empty. */
    private String software = "";
    private final String advertisedHost;
    private final int advertisedPort;
    private ChannelHandlerContext ctx;
    private boolean closed;
    /** Close once every answer written so far is out (a refused authentication). */
    private boolean closing;
    private SaslState saslState = SaslState.NONE;
    /** Who the client is: anonymous until SASL says otherwise; null while security is on and it has not. */
    private ClientScope scope;

    /** Where the connection is in SASL. */
    enum SaslState {
        NONE, HANDSHAKE_DONE, AUTHENTICATING, AUTHENTICATED
    }

    /** A request in progress, answered once it and every request before it are done. */
    private static final class Pending {
        final KafkaRequest request;
        final CompletableFuture<ApiMessage> future;
        ApiMessage response;
        boolean done;

        Pending(final KafkaRequest request, final CompletableFuture<ApiMessage> future) {
            this.request = request;
            this.future = future;
        }
    }

    KafkaConnection(final KafkaApis apis, final int maxPending, final String advertisedHost,
                    final int advertisedPort, final ClientScope anonymous, final ClientRegistry clients) {
        this.apis = apis;
        this.clients = clients;
        this.scope = anonymous;
        this.maxPending = maxPending;
        this.advertisedHost = advertisedHost;
        this.advertisedPort = advertisedPort;
    }

    /** The host clients are told to connect to. */
    String advertisedHost() {
        return advertisedHost;
    }

    /** The port of the listener this connection came in on (what Metadata names as the broker's). */
    int advertisedPort() {
        return advertisedPort;
    }

    /** The event loop this connection runs on. */
    EventExecutor executor() {
        return ctx.executor();
    }

    /** The channel's allocator, for what is rendered off the event loop for this connection. */
    ByteBufAllocator alloc() {
        return ctx.alloc();
    }

    /** The client's address (born host of what it produces). */
    InetSocketAddress remoteAddress() {
        final SocketAddress a = ctx.channel().remoteAddress();
        return a instanceof InetSocketAddress i ? i : null;
    }

    boolean isOpen() {
        return !closed;
    }

    /** The client's namespace and rights; null while it must still authenticate. */
    ClientScope scope() {
        return scope;
    }

    SaslState saslState() {
        return saslState;
    }

    void saslState(final SaslState state) {
        saslState = state;
    }

    /** SASL accepted the client as {@code authenticated}. On the event loop. */
    void authenticated(final ClientScope authenticated) {
        saslState = SaslState.AUTHENTICATED;
        if (closed) {
            authenticated.closed();
        } else {
            scope = authenticated;
        }
    }

    /** Closes the connection once the answers so far are written (Kafka closes after a failed authentication). */
    void closeAfterAnswer() {
        closing = true;
    }

    @Override
    public void handlerAdded(final ChannelHandlerContext context) {
        this.ctx = context;
    }

    @Override
    public void channelRead(final ChannelHandlerContext context, final Object msg) {
        final ByteBuf frame = (ByteBuf) msg;
        final ByteBuffer buffer;
        try {
            // A heap copy: parsed requests (record batches above all) keep slices of it past this call.
            buffer = ByteBuffer.allocate(frame.readableBytes());
            frame.readBytes(buffer);
            buffer.flip();
        } finally {
            frame.release();
        }
        if (!closed && !closing) {
            receive(buffer);
        }
    }

    private void receive(final ByteBuffer buffer) {
        if (buffer.remaining() < 8) {
            close("a frame too short for a request header");
            return;
        }
        final short apiKey = buffer.getShort(0);
        final short version = buffer.getShort(2);
        if (!ApiKeys.hasId(apiKey)) {
            close("unknown API key " + apiKey);
            return;
        }
        final ApiKeys api = ApiKeys.forId(apiKey);
        final RequestHeader header;
        final AbstractRequest body;
        try {
            if (api == ApiKeys.API_VERSIONS && !apis.supports(api, version)) {
                // Clients probe with their newest version; the answer in v0 tells them the ranges to pick from.
                final RequestHeader probe = new RequestHeader(api, version, null, buffer.getInt(4));
                enqueue(new KafkaRequest(probe, null, this),
                        CompletableFuture.completedFuture(apis.unsupportedApiVersions()));
                return;
            }
            if (!apis.supports(api, version)) {
                close("unsupported version " + version + " of " + api);
                return;
            }
            header = RequestHeader.parse(buffer);
            body = AbstractRequest.parseRequest(api, version, new ByteBufferAccessor(buffer)).request;
        } catch (RuntimeException e) {
            close("a malformed " + api + " request: " + e);
            return;
        }
        noteClient(header, body);
        final KafkaRequest request = new KafkaRequest(header, body, this);
        CompletableFuture<ApiMessage> future;
        try {
            future = apis.handle(request);
        } catch (RuntimeException e) {
            future = CompletableFuture.failedFuture(e);
        }
        enqueue(request, future);
    }

    /**
     * Lists the connection on its first request past authentication, and notes what requests say of the client: its
     * software (ApiVersions, which comes before SASL) and the groups it uses.
     */
    private void noteClient(final RequestHeader header, final AbstractRequest body) {
        if (body instanceof ApiVersionsRequest versions && versions.version() >= 3) {
            software = versions.data().clientSoftwareName() + " " + versions.data().clientSoftwareVersion();
        }
        if (listed == null && scope != null) {
            listed = clients.add("kafka", software, header.clientId(), scope.principal().name(),
                    ctx.channel().remoteAddress(), this::describe,
                    () -> ctx.executor().execute(() -> {
                        if (!closed) {
                            close("disconnected by an administrator");
                        }
                    }));
        }
        final String group = body instanceof JoinGroupRequest join ? join.data().groupId()
                : body instanceof OffsetCommitRequest commit ? commit.data().groupId() : null;
        if (group != null && groups.size() < MAX_LISTED_GROUPS) {
            groups.add(group);
        }
    }

    private List<String> describe() {
        return groups.stream().map(g -> "consumer group " + g).sorted().toList();
    }

    private void enqueue(final KafkaRequest request, final CompletableFuture<ApiMessage> future) {
        final Pending p = new Pending(request, future);
        pending.add(p);
        if (pending.size() >= maxPending) {
            ctx.channel().config().setAutoRead(false);
        }
        future.whenComplete((response, failure) -> {
            if (ctx.executor().inEventLoop()) {
                complete(p, response, failure);
            } else {
                ctx.executor().execute(() -> complete(p, response, failure));
            }
        });
    }

    private void complete(final Pending p, final ApiMessage response, final Throwable failure) {
        if (closed) {
            RenderedRecords.releaseIn(response);
            return;
        }
        p.done = true;
        p.response = failure == null ? response : errorResponse(p.request, failure);
        boolean wrote = false;
        while (!pending.isEmpty() && pending.peek().done) {
            final Pending head = pending.poll();
            if (head.response != null) {
                try {
                    ctx.write(encode(head.request, head.response));
                } finally {
                    RenderedRecords.releaseIn(head.response);
                }
                wrote = true;
            }
        }
        if (wrote) {
            ctx.flush();
        }
        if (closing && pending.isEmpty()) {
            closed = true;
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> ctx.close());
            return;
        }
        if (pending.size() < maxPending && !ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    private static ApiMessage errorResponse(final KafkaRequest request, final Throwable failure) {
        final Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        final Errors error = KafkaErrors.of(cause);
        if (error == Errors.UNKNOWN_SERVER_ERROR) {
            LOG.warn("{} from client {} failed", request.header().apiKey(), request.header().clientId(), cause);
        }
        return request.body().getErrorResponse(0, error.exception()).data();
    }

    /**
     * The size-prefixed response frame, serialized once into one direct buffer the channel writes as it is (a heap
     * frame made the transport copy it again), with a Fetch response's rendered records spliced in as they are
     * ({@link ByteBufWritable}): the channel writes the pieces with one gathering write. The response keeps its own
     * references to its records; the caller releases them ({@link RenderedRecords#releaseIn}).
     */
    private ByteBuf encode(final KafkaRequest request, final ApiMessage response) {
        final ResponseHeader header = request.header().toResponseHeader();
        final short version = request.body() == null ? 0 : request.version();
        final short headerVersion = request.body() == null ? 0 : header.headerVersion();
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final int size = header.data().size(cache, headerVersion) + response.size(cache, version);
        final int spliced = RenderedRecords.bytesIn(response);
        final ByteBuf head = ctx.alloc().directBuffer(4 + size - spliced);
        final CompositeByteBuf frame = spliced == 0 ? null : ctx.alloc().compositeDirectBuffer(Integer.MAX_VALUE);
        final ByteBufWritable out = new ByteBufWritable(head, frame);
        try {
            head.writeInt(size);
            header.data().write(out, cache, headerVersion);
            response.write(out, cache, version);
        } catch (RuntimeException e) {
            head.release();
            if (frame != null) {
                frame.release();
            }
            throw e;
        }
        final ByteBuf written = out.written();
        if (written.readableBytes() != 4 + size) {
            written.release();
            throw new IllegalStateException(request.header().apiKey() + " response of "
                    + (written.readableBytes() - 4) + " bytes, " + size + " expected");
        }
        return written;
    }

    private void close(final String why) {
        LOG.debug("closing Kafka connection from {}: {}", ctx.channel().remoteAddress(), why);
        closed = true;
        ctx.close();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext context) {
        closed = true;
        for (Pending p : pending) {
            p.future.cancel(false); // a waiting fetch stops waiting
            RenderedRecords.releaseIn(p.response); // answered, but after a request still in progress
        }
        pending.clear();
        if (listed != null) {
            listed.close();
        }
        if (saslState == SaslState.AUTHENTICATED && scope != null) {
            scope.closed();
        }
        context.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext context, final Throwable cause) {
        if (!closed) {
            close(String.valueOf(cause));
        }
    }
}
