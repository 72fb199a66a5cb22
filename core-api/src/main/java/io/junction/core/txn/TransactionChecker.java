package io.junction.core.txn;

import io.junction.core.message.StoredMessage;

/**
 * Asks a producer of {@code producerGroup} how an unresolved transaction ended; front-ends implement it (Remoting:
 * CHECK_TRANSACTION_STATE to a connected producer of the group; gRPC: RecoverOrphanedTransactionCommand). The answer
 * comes back later through {@code Messaging.endTransaction}.
 *
 * <p>Called on the store's check thread: it must not block (send the request and return).
 */
@FunctionalInterface
public interface TransactionChecker {
    /**
     * @param producerGroup the half message's {@code PGROUP}
     * @param halfMessage   the stored half record: topic {@code RMQ_SYS_TRANS_HALF_TOPIC}, the real topic and queue
     *                      in its {@code REAL_TOPIC} / {@code REAL_QID} properties (see
     *                      {@link TransactionMessages#realTopic} and {@link TransactionMessages#realQueueId}); its
     *                      {@code commitLogOffset} and unique id name it in the end request
     * @param checkTimes    how many times this half message has been checked, this check included (1 = first)
     */
    void check(String producerGroup, StoredMessage halfMessage, int checkTimes);
}
