package io.junction.core.txn;

import java.util.Objects;

/**
 * A producer's end of a transaction: which half message, and how it is resolved.
 *
 * <p>The half message is found by {@code commitLogOffset} when it is not negative (Remoting's
 * {@code commitLogOffset}), else by {@code messageId} (its unique id, gRPC's message id), else by
 * {@code transactionId}. Given fields that are not used to find it must match it: a {@code messageId} must be its
 * unique id (or its offset message id) and a {@code producerGroup} its {@code PGROUP}.
 *
 * @param producerGroup   the producer group, or null when the protocol does not carry it (gRPC)
 * @param commitLogOffset the half record's log offset from the send result, or -1
 * @param messageId       the message's unique id, or null
 * @param transactionId   the transaction id, or null
 * @param resolution      COMMIT, ROLLBACK, or UNKNOWN ("not yet": no change, it will be checked back)
 * @param fromCheck       true when this answers a check-back (diagnostics only)
 */
public record TransactionEnd(
        String producerGroup,
        long commitLogOffset,
        String messageId,
        String transactionId,
        TransactionResolution resolution,
        boolean fromCheck) {

    public TransactionEnd {
        Objects.requireNonNull(resolution, "resolution");
    }

    /** An end naming the half message by its log offset and unique id (the Remoting way). */
    public static TransactionEnd byOffset(final String producerGroup, final long commitLogOffset,
                                          final String messageId, final TransactionResolution resolution) {
        return new TransactionEnd(producerGroup, commitLogOffset, messageId, null, resolution, false);
    }

    /** An end naming the half message by its unique id and transaction id (the gRPC way). */
    public static TransactionEnd byId(final String messageId, final String transactionId,
                                      final TransactionResolution resolution) {
        return new TransactionEnd(null, -1, messageId, transactionId, resolution, false);
    }
}
