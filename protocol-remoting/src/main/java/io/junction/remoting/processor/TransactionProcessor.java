package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.txn.TransactionChecker;
import io.junction.core.txn.TransactionEnd;
import io.junction.core.txn.TransactionResolution;
import io.junction.remoting.ClientChannels;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * END_TRANSACTION from producers, and the check-back: CHECK_TRANSACTION_STATE sent (oneway) to a connected producer
 * of the half message's group, which answers with another END_TRANSACTION.
 */
public final class TransactionProcessor implements RequestProcessor, TransactionChecker {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionProcessor.class);
    private static final int COMMIT = 8;
    private static final int ROLLBACK = 12;

    private final Messaging messaging;
    private final ClientChannels channels;
    private final AtomicInteger opaques;
    private final AtomicInteger roundRobin = new AtomicInteger();

    public TransactionProcessor(final Messaging messaging, final ClientChannels channels, final AtomicInteger opaques) {
        this.messaging = messaging;
        this.channels = channels;
        this.opaques = opaques;
    }

    @Override
    public CompletableFuture<RemotingCommand> process(final Channel channel, final RemotingCommand request) {
        final int type = request.intField("commitOrRollback", 0);
        final TransactionResolution resolution = type == COMMIT ? TransactionResolution.COMMIT
                : type == ROLLBACK ? TransactionResolution.ROLLBACK : TransactionResolution.UNKNOWN;
        final TransactionEnd end = new TransactionEnd(request.field("producerGroup"),
                request.longField("commitLogOffset", -1), request.field("msgId"), request.field("transactionId"),
                resolution, request.boolField("fromTransactionCheck", false));
        return messaging.endTransaction(end).handle((v, e) -> {
            if (e != null) {
                LOG.debug("end transaction {} refused: {}", end, e.getMessage());
                return request.isOneway() ? null : Responses.failure(request, e);
            }
            return request.isOneway() ? null : Responses.success(request);
        });
    }

    @Override
    public void check(final String producerGroup, final StoredMessage half, final int checkTimes) {
        // A half message sent without PGROUP (any raw client can) names no group to ask; the store's timeout
        // resolution settles it. Looking up a null group threw out of every check round.
        final List<Channel> producers = producerGroup == null ? List.of() : channels.producerChannels(producerGroup);
        if (producers.isEmpty()) {
            LOG.debug("no connected producer of group {} to check transaction {}", producerGroup, half.uniqueId());
            return;
        }
        final Channel target = producers.get(Math.floorMod(roundRobin.getAndIncrement(), producers.size()));
        final String realTopic = half.realTopic();
        final int realQueue = half.realQueueId();
        final Map<String, String> props = new LinkedHashMap<>(half.properties());
        props.put(MessageProperties.CHECK_TIMES, Integer.toString(checkTimes));
        final String txId = half.property(MessageProperties.TRANSACTION_ID);
        final RemotingCommand check = RemotingCommand.request(RequestCode.CHECK_TRANSACTION_STATE,
                opaques.incrementAndGet(), true)
                .put("topic", realTopic)
                .put("tranStateTableOffset", half.queueOffset())
                .put("commitLogOffset", half.commitLogOffset())
                .put("msgId", half.uniqueId())
                .put("transactionId", txId != null ? txId : half.uniqueId())
                .put("offsetMsgId", half.offsetMessageId());
        check.payload(Unpooled.wrappedBuffer(half.recordAs(realTopic == null ? half.topic() : realTopic,
                Math.max(realQueue, 0), props)));
        target.writeAndFlush(check);
    }
}
