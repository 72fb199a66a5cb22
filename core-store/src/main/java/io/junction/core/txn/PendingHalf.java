package io.junction.core.txn;

import java.util.concurrent.atomic.AtomicBoolean;

/** An unresolved half message as the service tracks it; the record itself stays in the log. */
final class PendingHalf {
    final long halfOffset;
    final long halfQueueOffset;
    final long storeTimestamp;
    final String uniqueId;
    final String transactionId;
    final String producerGroup;
    final String realTopic;
    final long firstCheckDelay;
    /** Op-queue offset at or below every op record about this half message (where a replay must start). */
    final long opMark;
    /** Loaded by a replay: a commit may have delivered it before the restart without recording its op. */
    final boolean recovered;
    /** Claimed by an end or a timeout resolution in progress. */
    final AtomicBoolean resolving = new AtomicBoolean();
    volatile int checkTimes;
    volatile long lastCheck;

    PendingHalf(final long halfOffset, final long halfQueueOffset, final long storeTimestamp, final String uniqueId,
                final String transactionId, final String producerGroup, final String realTopic,
                final long firstCheckDelay, final long opMark, final boolean recovered) {
        this.halfOffset = halfOffset;
        this.halfQueueOffset = halfQueueOffset;
        this.storeTimestamp = storeTimestamp;
        this.uniqueId = uniqueId;
        this.transactionId = transactionId;
        this.producerGroup = producerGroup;
        this.realTopic = realTopic;
        this.firstCheckDelay = firstCheckDelay;
        this.opMark = opMark;
        this.recovered = recovered;
    }

    /** When the next check-back is due. */
    long nextCheck(final long interval) {
        return checkTimes == 0 ? storeTimestamp + firstCheckDelay : lastCheck + interval;
    }
}
