package io.junction.cluster.contract;

import io.junction.cluster.contract.ContractCodec.PopRequestSpec;
import io.junction.cluster.contract.ContractCodec.PullRequestSpec;
import io.junction.core.Messaging;
import io.junction.core.PopResult;
import io.junction.core.PullResult;
import io.junction.core.RecallHandle;
import io.junction.core.SendResult;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.filter.InvalidFilterException;
import io.junction.core.message.Message;
import io.junction.core.txn.TransactionChecker;
import io.junction.core.txn.TransactionEnd;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One peer connection of a {@link ContractServer}: decodes each request frame, calls the store, and writes the answer
 * when the store's future completes (on whatever thread that is; Netty hands the write to the event loop). Requests
 * still waiting are kept by id so that a CANCEL frame, or the connection closing, drops them (a long poll whose
 * caller left). Over {@code maxInFlight} waiting requests the connection is not read until answers go out.
 *
 * <p>Only the event loop touches {@link #pending}; completions hop onto it.
 */
final class ContractServerHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ContractServerHandler.class);

    private final Supplier<? extends Messaging> target;
    private final StoreNodeView view;
    private final TransactionChecker localProducers;
    private final int maxInFlight;
    private final Map<Long, CompletableFuture<?>> pending = new HashMap<>();

    private static final BiConsumer<ByteBuf, Object> NOTHING = DecodedRequest.NOTHING;
    private static final BiConsumer<ByteBuf, Object> WRITE_LONG = (out, r) -> out.writeLong((Long) r);

    /** @param localProducers asks this node's front-ends' producers (a check-back the leader hands over) */
    ContractServerHandler(final Supplier<? extends Messaging> target, final StoreNodeView view,
                          final TransactionChecker localProducers, final int maxInFlight) {
        this.target = target;
        this.view = view;
        this.localProducers = localProducers;
        this.maxInFlight = maxInFlight;
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
        final ByteBuf frame = (ByteBuf) msg;
        try {
            if (frame.readableBytes() < ContractFrame.HEADER_AFTER_LENGTH) {
                throw new MalformedFrameException("a frame shorter than its header");
            }
            final long id = frame.readLong();
            final byte kind = frame.readByte();
            if (kind == TransactionCheckFrame.KIND) {
                final TransactionCheckFrame.Check check = TransactionCheckFrame.read(frame);
                if (frame.isReadable()) {
                    throw new MalformedFrameException(frame.readableBytes() + " bytes after a check-back");
                }
                checkWithLocalProducers(check);
                return;
            }
            final Operation op = Operation.of(kind);
            if (op == null) {
                throw new MalformedFrameException("unknown operation " + kind);
            }
            if (op == Operation.CANCEL) {
                final CompletableFuture<?> waiting = pending.remove(id);
                if (waiting != null) {
                    waiting.cancel(true);
                }
                return;
            }
            if (pending.containsKey(id)) {
                throw new MalformedFrameException("request id " + id + " is in use");
            }
            serve(ctx, id, op, frame);
        } catch (MalformedFrameException e) {
            LOG.warn("Closing contract connection {}: {}", ctx.channel().remoteAddress(), e.getMessage());
            ctx.close();
        } finally {
            frame.release();
        }
    }

    /** A check-back the leader hands over: no answer; the producer's answer comes back as an endTransaction. */
    private void checkWithLocalProducers(final TransactionCheckFrame.Check check) {
        try {
            localProducers.check(check.producerGroup(), check.halfMessage(), check.checkTimes());
        } catch (RuntimeException e) {
            LOG.warn("Checking half message {} with this node's producers failed", check.halfMessage().uniqueId(), e);
        }
    }

    private void serve(final ChannelHandlerContext ctx, final long id, final Operation op, final ByteBuf in) {
        // The whole body is decoded before the store is called: a body that does not decode (cut short, a count
        // beyond its bytes, garbage, bytes after its end) is answered as a bad request and has changed nothing.
        // The frame's length kept the stream in step, so the connection goes on serving.
        final DecodedRequest request;
        try {
            request = decode(op, view, in);
            if (in.isReadable()) {
                throw new MalformedFrameException(in.readableBytes() + " bytes after the " + op + " body");
            }
        } catch (MalformedFrameException e) {
            LOG.debug("Malformed {} body on contract connection {}: {}", op, ctx.channel().remoteAddress(),
                    e.getMessage());
            answerError(ctx.channel(), id, StoreError.ILLEGAL_ARGUMENT, "malformed " + op + " body: "
                    + e.getMessage());
            return;
        }
        final CompletableFuture<?> call;
        final BiConsumer<ByteBuf, Object> writer = request.writer();
        final Messaging store = target.get();
        try {
            call = request.call().apply(store);
        } catch (InvalidFilterException e) {
            answerError(ctx.channel(), id, StoreError.ILLEGAL_FILTER, e.getMessage());
            return;
        } catch (StoreException e) {
            answerError(ctx.channel(), id, e.error(), e.getMessage());
            return;
        } catch (RuntimeException e) {
            // A store that throws instead of failing its future (a null where a name is required): the request's
            // answer, not the connection's end.
            answerError(ctx.channel(), id, StoreError.ILLEGAL_ARGUMENT, String.valueOf(e.getMessage()));
            return;
        }
        pending.put(id, call);
        if (pending.size() >= maxInFlight) {
            ctx.channel().config().setAutoRead(false);
        }
        call.whenComplete((result, failure) -> ctx.executor().execute(() -> {
            if (pending.remove(id) == null) {
                // Cancelled by the peer, or its connection closed, after the store had produced the result (a cancel
                // before that frees what the store took): nobody waits for the answer.
                if (failure == null && request.unanswered() != null) {
                    request.unanswered().accept(store, result);
                }
                return;
            }
            if (pending.size() < maxInFlight && !ctx.channel().config().isAutoRead()) {
                ctx.channel().config().setAutoRead(true);
            }
            if (failure == null) {
                answer(ctx.channel(), id, writer, result);
            } else if (!(failure instanceof CancellationException)) {
                final StoreError error = StoreException.errorOf(failure);
                answerError(ctx.channel(), id, error == null ? StoreError.UNAVAILABLE : error,
                        String.valueOf(rootMessage(failure)));
            }
        }));
    }

    /** Reads the body of a message operation (an admin one: {@link AdminRequests}); the call is not made yet. */
    private static DecodedRequest decode(final Operation op, final StoreNodeView view, final ByteBuf in) {
        return switch (op) {
            case SEND -> {
                final Message message = ContractCodec.readMessage(in);
                yield new DecodedRequest(m -> m.send(message),
                        (out, r) -> ContractCodec.writeSendResult(out, (SendResult) r));
            }
            case SEND_BATCH -> {
                final List<Message> messages = ContractCodec.readMessages(in);
                yield new DecodedRequest(m -> m.sendBatch(messages),
                        (out, r) -> ContractCodec.writeSendResults(out, castList(r)));
            }
            case PULL -> {
                final PullRequestSpec request = ContractCodec.readPullRequest(in);
                yield new DecodedRequest(m -> m.pull(request.compile()),
                        (out, r) -> ContractCodec.writePullResult(out, (PullResult) r));
            }
            case POP -> {
                final PopRequestSpec request = ContractCodec.readPopRequest(in);
                yield new DecodedRequest(m -> m.pop(request.compile()),
                        (out, r) -> ContractCodec.writePopResult(out, (PopResult) r),
                        (m, r) -> ((PopResult) r).giveBack(m, request.group()));
            }
            case ACK -> {
                final String group = WireFormat.readString(in);
                final String handle = WireFormat.readString(in);
                yield new DecodedRequest(m -> m.ack(group, handle), NOTHING);
            }
            case ACK_LIST -> {
                final String group = WireFormat.readString(in);
                final List<String> handles = WireFormat.readStrings(in);
                yield new DecodedRequest(m -> m.ack(group, handles), NOTHING);
            }
            case CHANGE_INVISIBLE_TIME -> {
                final String group = WireFormat.readString(in);
                final String handle = WireFormat.readString(in);
                final long invisibleMillis = WireFormat.readLong(in);
                yield new DecodedRequest(m -> m.changeInvisibleTime(group, handle, invisibleMillis),
                        (out, r) -> WireFormat.writeString(out, (String) r));
            }
            case NACK -> {
                final String group = WireFormat.readString(in);
                final String handle = WireFormat.readString(in);
                yield new DecodedRequest(m -> m.nack(group, handle),
                        (out, r) -> WireFormat.writeString(out, (String) r));
            }
            case GIVE_BACK -> {
                final String group = WireFormat.readString(in);
                final String handle = WireFormat.readString(in);
                yield new DecodedRequest(m -> m.giveBack(group, handle), NOTHING);
            }
            case DEAD_LETTER -> {
                final String group = WireFormat.readString(in);
                final String handle = WireFormat.readString(in);
                yield new DecodedRequest(m -> m.deadLetter(group, handle), NOTHING);
            }
            case RECALL -> {
                final RecallHandle handle = ContractCodec.readRecallHandle(in);
                yield new DecodedRequest(m -> m.recall(handle), NOTHING);
            }
            case END_TRANSACTION -> {
                final TransactionEnd end = ContractCodec.readTransactionEnd(in);
                yield new DecodedRequest(m -> m.endTransaction(end), NOTHING);
            }
            case COMMIT_OFFSET -> {
                final String group = WireFormat.readString(in);
                final String topic = WireFormat.readString(in);
                final int queueId = WireFormat.readInt(in);
                final long offset = WireFormat.readLong(in);
                // Memory only on the store (the offset table is made durable in the background).
                yield new DecodedRequest(m -> {
                    m.commitOffset(group, topic, queueId, offset);
                    return CompletableFuture.completedFuture(null);
                }, NOTHING);
            }
            case QUERY_OFFSET -> {
                final String group = WireFormat.readString(in);
                final String topic = WireFormat.readString(in);
                final int queueId = WireFormat.readInt(in);
                yield new DecodedRequest(
                        m -> CompletableFuture.completedFuture(m.queryOffset(group, topic, queueId)), WRITE_LONG);
            }
            case SEARCH_OFFSET -> {
                final String topic = WireFormat.readString(in);
                final int queueId = WireFormat.readInt(in);
                final long timestamp = WireFormat.readLong(in);
                yield new DecodedRequest(m -> m.searchOffset(topic, queueId, timestamp), WRITE_LONG);
            }
            case EARLIEST_STORE_TIME -> {
                final String topic = WireFormat.readString(in);
                final int queueId = WireFormat.readInt(in);
                yield new DecodedRequest(m -> m.earliestStoreTime(topic, queueId), WRITE_LONG);
            }
            default -> AdminRequests.decode(op, view, in);
        };
    }

    @SuppressWarnings("unchecked")
    private static <T> List<T> castList(final Object list) {
        return (List<T>) list;
    }

    private static String rootMessage(final Throwable failure) {
        Throwable t = failure;
        while (t.getCause() != null && (t.getMessage() == null || t instanceof CompletionException)) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    private static void answer(final Channel channel, final long id, final BiConsumer<ByteBuf, Object> writer,
                               final Object result) {
        final ByteBuf out = channel.alloc().buffer();
        try {
            out.writeInt(0);
            out.writeLong(id);
            out.writeByte(ContractFrame.RESULT);
            writer.accept(out, result);
        } catch (RuntimeException e) {
            out.release();
            LOG.warn("Cannot encode the answer to request {}", id, e);
            answerError(channel, id, StoreError.UNAVAILABLE, "cannot encode the answer: " + e.getMessage());
            return;
        }
        out.setInt(ContractFrame.LENGTH_OFFSET, out.readableBytes() - ContractFrame.LENGTH_FIELD);
        channel.writeAndFlush(out, channel.voidPromise());
    }

    private static void answerError(final Channel channel, final long id, final StoreError error,
                                    final String text) {
        final ByteBuf out = channel.alloc().buffer();
        out.writeInt(0);
        out.writeLong(id);
        out.writeByte(ContractFrame.ERROR);
        ContractCodec.writeError(out, error, text);
        out.setInt(ContractFrame.LENGTH_OFFSET, out.readableBytes() - ContractFrame.LENGTH_FIELD);
        channel.writeAndFlush(out, channel.voidPromise());
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) {
        // The peer left: its long polls stop waiting, and what they were taking goes back to the group.
        for (CompletableFuture<?> waiting : pending.values()) {
            waiting.cancel(true);
        }
        pending.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            LOG.warn("Closing contract connection {}: {}", ctx.channel().remoteAddress(), cause.getMessage());
        } else {
            LOG.debug("Contract connection {} failed", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }
}
