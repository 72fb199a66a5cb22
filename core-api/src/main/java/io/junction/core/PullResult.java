package io.junction.core;

import io.junction.core.message.StoredMessage;
import java.util.List;

/**
 * What a pull found.
 *
 * @param nextOffset where the next pull of this queue should start
 * @param minOffset  the queue's smallest readable offset
 * @param maxOffset  the queue's end (offset of the next message to arrive)
 */
public record PullResult(
        PullStatus status,
        List<StoredMessage> messages,
        long nextOffset,
        long minOffset,
        long maxOffset) {

    public static PullResult empty(final PullStatus status, final long nextOffset, final long minOffset,
                                   final long maxOffset) {
        return new PullResult(status, List.of(), nextOffset, minOffset, maxOffset);
    }
}
