package io.junction.cluster.contract;

import io.junction.core.BrowseRequest;
import io.junction.core.BrowseResult;
import io.junction.core.Messaging;
import io.junction.core.PopRequest;
import io.junction.core.PopResult;
import io.junction.core.PullRequest;
import io.junction.core.PullResult;
import io.junction.core.RecallHandle;
import io.junction.core.Receipt;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.core.txn.TransactionChecker;
import io.junction.core.txn.TransactionEnd;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core contract of another node, reached over TCP through its {@link ContractServer}: the operations a follower
 * forwards to its leader (writes, POP and its acknowledgements, offsets). One connection, opened on the first call and
 * again on the first call after it is lost; calls carry request ids and are answered in any order.
 *
 * <p>Each call has a deadline: {@code callTimeout}, and for a long poll its wait plus that. A call whose connection
 * is lost, or that is not answered in time, fails with {@code StoreError.UNAVAILABLE}, which every front-end answers
 * with its protocol's retriable error. Cancelling a call's future (a long poll whose client left) cancels it on the
 * server too. A filter that cannot be described ({@link io.junction.core.filter.MessageFilter#spec()} is null) is
 * never widened: the call fails with UNAVAILABLE.
 *
 * <p>Reads and queries are served too. The contract's synchronous calls (routes, metadata views, offsets, consumers)
 * cannot wait on a network answer and throw {@link UnsupportedOperationException} here: a follower reads them from its
 * replica, a proxy from its mirror, which {@link #admin()} feeds (and through which metadata changes go).
 */
public final class RemoteMessaging implements Messaging, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RemoteMessaging.class);
    private static final int CONNECT_TIMEOUT_MILLIS = 3000;

    private final EventLoopGroup group;
    private final InetSocketAddress address;
    private final int maxFrame;
    private final long callTimeoutMillis;
    private final AtomicLong ids = new AtomicLong();
    private final RemoteAdmin admin = new RemoteAdmin(this);
    private final Object lock = new Object();
    /** The connection in use or being opened; replaced when it is lost. */
    private CompletableFuture<ContractConnection> connection;
    private volatile boolean closed;

    /**
     * @param group          event loops for the connection (shared by a node's clients)
     * @param address        the contract server
     * @param maxMessageSize the largest message body either side accepts
     * @param callTimeout    how long a call waits for its answer (beyond its long-poll wait)
     */
    public RemoteMessaging(final EventLoopGroup group, final InetSocketAddress address, final int maxMessageSize,
                           final Duration callTimeout) {
        this.group = group;
        this.address = address;
        this.maxFrame = ContractFrame.maxFrameLength(maxMessageSize);
        this.callTimeoutMillis = callTimeout.toMillis();
    }

    public InetSocketAddress address() {
        return address;
    }

    private CompletableFuture<ContractConnection> connection() {
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(unavailable("the contract client is closed"));
            }
            if (connection != null && (!connection.isDone() || usable(connection))) {
                return connection; // Opening, or open.
            }
            final CompletableFuture<ContractConnection> opening = new CompletableFuture<>();
            connection = opening;
            final ContractConnection handler = new ContractConnection();
            final ChannelFuture connect = new Bootstrap()
                    .group(group)
                    .channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(final SocketChannel ch) {
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(maxFrame,
                                    ContractFrame.LENGTH_OFFSET, ContractFrame.LENGTH_FIELD, 0,
                                    ContractFrame.LENGTH_FIELD), handler);
                        }
                    })
                    .connect(address);
            connect.addListener(f -> {
                if (f.isSuccess()) {
                    handler.attach(connect.channel());
                    opening.complete(handler);
                } else {
                    opening.completeExceptionally(unavailable("cannot reach the contract server " + address + ": "
                            + f.cause().getMessage()));
                }
            });
            return opening;
        }
    }

    private static boolean usable(final CompletableFuture<ContractConnection> opened) {
        return !opened.isCompletedExceptionally() && opened.join().usable();
    }

    /**
     * Sends one request and reads its answer.
     *
     * @param waitMillis how long the server may hold the request (a long poll) on top of the call timeout
     */
    <T> CompletableFuture<T> call(final Operation op, final Consumer<ByteBuf> body,
                                          final Function<ByteBuf, T> reader, final long waitMillis) {
        return call(op, body, reader, waitMillis, null);
    }

    /**
     * As {@link #call(Operation, Consumer, Function, long)}; {@code unclaimed} (or null) takes an answer that arrives
     * after the caller cancelled. Such a call stays registered after the cancel (until its answer or its deadline),
     * since the server may have answered already: its CANCEL then finds nothing to drop.
     */
    <T> CompletableFuture<T> call(final Operation op, final Consumer<ByteBuf> body,
                                  final Function<ByteBuf, T> reader, final long waitMillis,
                                  final Consumer<T> unclaimed) {
        final long id = ids.incrementAndGet();
        final ByteBuf frame = ByteBufAllocator.DEFAULT.heapBuffer();
        try {
            frame.writeInt(0);
            frame.writeLong(id);
            frame.writeByte(op.code);
            body.accept(frame);
            frame.setInt(ContractFrame.LENGTH_OFFSET, frame.readableBytes() - ContractFrame.LENGTH_FIELD);
            if (frame.readableBytes() - ContractFrame.LENGTH_FIELD > maxFrame) {
                throw new StoreException(StoreError.MESSAGE_TOO_LARGE, "the request is larger than "
                        + maxFrame + " bytes");
            }
        } catch (StoreException e) {
            frame.release();
            return CompletableFuture.failedFuture(e);
        } catch (IllegalArgumentException e) {
            frame.release();
            return CompletableFuture.failedFuture(unavailable("cannot forward to the leader: " + e.getMessage()));
        }
        final CompletableFuture<T> result = new CompletableFuture<>();
        connection().whenComplete((conn, failure) -> {
            if (failure != null) {
                frame.release();
                result.completeExceptionally(failure);
                return;
            }
            if (!conn.register(id, new ContractConnection.Waiting<>(result, reader, unclaimed))) {
                frame.release();
                result.completeExceptionally(unavailable("the connection to " + address + " closed"));
                return;
            }
            final Channel channel = conn.channel();
            channel.writeAndFlush(frame);
            final long deadline = Math.max(0, waitMillis) + callTimeoutMillis;
            final var timeout = channel.eventLoop().schedule(() -> {
                if (conn.forget(id)) {
                    cancelRemote(channel, id);
                    result.completeExceptionally(unavailable(op + " not answered by " + address + " within "
                            + deadline + " ms"));
                }
            }, deadline, TimeUnit.MILLISECONDS);
            result.whenComplete((r, e) -> {
                if (!result.isCancelled()) {
                    timeout.cancel(false);
                } else if (unclaimed != null) {
                    cancelRemote(channel, id); // its answer, if one is on the way, still reaches unclaimed
                } else if (conn.forget(id)) {
                    timeout.cancel(false);
                    cancelRemote(channel, id);
                }
            });
        });
        return result;
    }

    private static void cancelRemote(final Channel channel, final long id) {
        if (!channel.isActive()) {
            return;
        }
        final ByteBuf frame = channel.alloc().buffer(ContractFrame.BODY_OFFSET);
        frame.writeInt(ContractFrame.HEADER_AFTER_LENGTH);
        frame.writeLong(id);
        frame.writeByte(Operation.CANCEL.code);
        channel.writeAndFlush(frame, channel.voidPromise());
    }

    private static StoreException unavailable(final String why) {
        return new StoreException(StoreError.UNAVAILABLE, why);
    }

    static Void none(final ByteBuf in) {
        return null;
    }

    @Override
    public CompletableFuture<SendResult> send(final Message message) {
        return call(Operation.SEND, out -> ContractCodec.writeMessage(out, message), ContractCodec::readSendResult,
                0);
    }

    @Override
    public CompletableFuture<List<SendResult>> sendBatch(final List<Message> messages) {
        return call(Operation.SEND_BATCH, out -> ContractCodec.writeMessages(out, messages),
                ContractCodec::readSendResults, 0);
    }

    @Override
    public CompletableFuture<PullResult> pull(final PullRequest request) {
        return call(Operation.PULL, out -> ContractCodec.writePullRequest(out, request), ContractCodec::readPullResult,
                request.maxWaitMillis());
    }

    /**
     * A pop cancelled (its client left) while the server's answer is on the way gives the answer's messages back at
     * once; otherwise they would come back only after their invisible time.
     */
    @Override
    public CompletableFuture<PopResult> pop(final PopRequest request) {
        return call(Operation.POP, out -> ContractCodec.writePopRequest(out, request), ContractCodec::readPopResult,
                request.maxWaitMillis(), unclaimed -> unclaimed.giveBack(this, request.group()));
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final String receiptHandle) {
        return call(Operation.ACK, out -> {
            WireFormat.writeString(out, group);
            WireFormat.writeString(out, receiptHandle);
        }, RemoteMessaging::none, 0);
    }

    @Override
    public CompletableFuture<Void> ack(final String group, final List<String> receiptHandles) {
        return call(Operation.ACK_LIST, out -> {
            WireFormat.writeString(out, group);
            WireFormat.writeStrings(out, receiptHandles);
        }, RemoteMessaging::none, 0);
    }

    @Override
    public CompletableFuture<Void> ackReceipts(final String group, final List<? extends Receipt> receipts) {
        return ack(group, receipts.stream().map(Receipt::sealed).toList());
    }

    private <T> CompletableFuture<T> receiptCall(final Operation op, final String group, final String handle,
                                                 final Function<ByteBuf, T> answer) {
        return call(op, out -> {
            WireFormat.writeString(out, group);
            WireFormat.writeString(out, handle);
        }, answer, 0);
    }

    @Override
    public CompletableFuture<String> changeInvisibleTime(final String group, final String receiptHandle,
                                                         final long invisibleMillis) {
        return call(Operation.CHANGE_INVISIBLE_TIME, out -> {
            WireFormat.writeString(out, group);
            WireFormat.writeString(out, receiptHandle);
            out.writeLong(invisibleMillis);
        }, WireFormat::readString, 0);
    }

    @Override
    public CompletableFuture<String> nack(final String group, final String receiptHandle) {
        return receiptCall(Operation.NACK, group, receiptHandle, WireFormat::readString);
    }

    @Override
    public CompletableFuture<Void> giveBack(final String group, final String receiptHandle) {
        return receiptCall(Operation.GIVE_BACK, group, receiptHandle, RemoteMessaging::none); // answered empty
    }

    @Override
    public CompletableFuture<Void> deadLetter(final String group, final String receiptHandle) {
        return receiptCall(Operation.DEAD_LETTER, group, receiptHandle, RemoteMessaging::none); // answered empty
    }

    @Override
    public CompletableFuture<Void> recall(final RecallHandle handle) {
        return call(Operation.RECALL, out -> ContractCodec.writeRecallHandle(out, handle), RemoteMessaging::none, 0);
    }

    @Override
    public CompletableFuture<Void> endTransaction(final TransactionEnd end) {
        return call(Operation.END_TRANSACTION, out -> ContractCodec.writeTransactionEnd(out, end),
                RemoteMessaging::none, 0);
    }

    /**
     * Sends the offset without waiting for the answer (the contract's commit is a memory write that returns
     * nothing); {@link #commitOffsetAsync} says when the server has it.
     */
    @Override
    public void commitOffset(final String group, final String topic, final int queueId, final long offset) {
        commitOffsetAsync(group, topic, queueId, offset).whenComplete((r, e) -> {
            if (e != null) {
                LOG.debug("Forwarding the offset of {} on {}-{} failed", group, topic, queueId, e);
            }
        });
    }

    /** Records a group's offset on the server; completes once the server took it. */
    public CompletableFuture<Void> commitOffsetAsync(final String group, final String topic, final int queueId,
                                                     final long offset) {
        return call(Operation.COMMIT_OFFSET, out -> {
            WireFormat.writeString(out, group);
            WireFormat.writeString(out, topic);
            out.writeInt(queueId);
            out.writeLong(offset);
        }, RemoteMessaging::none, 0);
    }

    /**
     * Not served: the contract's query is synchronous and a remote answer is not. Use {@link #queryOffsetAsync}; a
     * follower answers from its replicated table.
     */
    @Override
    public long queryOffset(final String group, final String topic, final int queueId) {
        throw new UnsupportedOperationException("queryOffset over the network is queryOffsetAsync");
    }

    /** A group's committed offset on the server, or -1. */
    public CompletableFuture<Long> queryOffsetAsync(final String group, final String topic, final int queueId) {
        return call(Operation.QUERY_OFFSET, out -> {
            WireFormat.writeString(out, group);
            WireFormat.writeString(out, topic);
            out.writeInt(queueId);
        }, WireFormat::readLong, 0);
    }

    @Override
    public CompletableFuture<Long> searchOffset(final String topic, final int queueId, final long timestamp) {
        return call(Operation.SEARCH_OFFSET, out -> {
            WireFormat.writeString(out, topic);
            out.writeInt(queueId);
            out.writeLong(timestamp);
        }, WireFormat::readLong, 0);
    }

    @Override
    public CompletableFuture<Long> earliestStoreTime(final String topic, final int queueId) {
        return call(Operation.EARLIEST_STORE_TIME, out -> {
            WireFormat.writeString(out, topic);
            out.writeInt(queueId);
        }, WireFormat::readLong, 0);
    }

    @Override
    public CompletableFuture<BrowseResult> browse(final BrowseRequest request) {
        return call(Operation.BROWSE, out -> AdminCodec.writeBrowseRequest(out, request),
                AdminCodec::readBrowseResult, 0);
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> lookup(final long commitLogOffset) {
        return call(Operation.LOOKUP, out -> out.writeLong(commitLogOffset), AdminCodec::readOptionalStored, 0);
    }

    @Override
    public CompletableFuture<Optional<StoredMessage>> queryById(final String topic, final String messageId) {
        return call(Operation.QUERY_BY_ID, out -> {
            WireFormat.writeString(out, topic);
            WireFormat.writeString(out, messageId);
        }, AdminCodec::readOptionalStored, 0);
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByKey(final String topic, final String key, final int max,
                                                             final long beginTimestamp, final long endTimestamp) {
        return call(Operation.QUERY_BY_KEY, out -> {
            WireFormat.writeString(out, topic);
            WireFormat.writeString(out, key);
            out.writeInt(max);
            out.writeLong(beginTimestamp);
            out.writeLong(endTimestamp);
        }, ContractCodec::readStoredList, 0);
    }

    @Override
    public CompletableFuture<List<StoredMessage>> queryByTime(final String topic, final long beginTimestamp,
                                                              final long endTimestamp, final int max) {
        return call(Operation.QUERY_BY_TIME, out -> {
            WireFormat.writeString(out, topic);
            out.writeLong(beginTimestamp);
            out.writeLong(endTimestamp);
            out.writeInt(max);
        }, ContractCodec::readStoredList, 0);
    }

    /** The metadata, membership and statistics operations of the same server (what a proxy mirrors or forwards). */
    public RemoteAdmin admin() {
        return admin;
    }

    // ---- synchronous in the contract: a proxy answers them from its mirror (RemoteAdmin feeds it) ----

    private static UnsupportedOperationException unsupported(final String what) {
        return new UnsupportedOperationException(what + " is not served over the contract");
    }

    @Override
    public void addTransactionChecker(final TransactionChecker checker) {
        throw unsupported("transaction check-back");
    }

    @Override
    public void removeTransactionChecker(final TransactionChecker checker) {
        throw unsupported("transaction check-back");
    }

    @Override
    public long minOffset(final String topic, final int queueId) {
        throw unsupported("minOffset");
    }

    @Override
    public long maxOffset(final String topic, final int queueId) {
        throw unsupported("maxOffset");
    }

    @Override
    public Duration retention() {
        throw unsupported("retention");
    }

    @Override
    public Optional<TopicConfig> route(final String topic) {
        throw unsupported("route");
    }

    @Override
    public TopicAdmin topics() {
        throw unsupported("topic administration");
    }

    @Override
    public GroupAdmin groups() {
        throw unsupported("group administration");
    }

    @Override
    public Consumers consumers() {
        throw unsupported("consumers");
    }

    @Override
    public Statistics statistics() {
        throw unsupported("statistics");
    }

    @Override
    public KvConfigs kvConfigs() {
        throw unsupported("kv configs");
    }

    /** Closes the connection; calls still waiting fail with UNAVAILABLE, later ones at once. */
    @Override
    public void close() {
        final CompletableFuture<ContractConnection> current;
        synchronized (lock) {
            closed = true;
            current = connection;
            connection = null;
        }
        if (current != null) {
            current.thenAccept(conn -> {
                conn.end("the contract client closed");
                conn.channel().close();
            });
        }
    }
}
