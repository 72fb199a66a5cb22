package io.junction.core.engine;

import io.junction.core.message.StoredMessage;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The last records read from the log, decoded, by log offset: the readers of a queue's tail (a topic with many
 * subscribers) read each new record within moments of each other, and share one decoded message, and one decoding of
 * its properties, instead of each checking and decoding the record again.
 *
 * <p>A slot holds whichever record hashed to it last; a record seen again after its slot was reused is simply
 * decoded again. Sharing is safe because a {@link StoredMessage} is immutable (its buffers are read-only views that
 * every reader duplicates before moving a position) and a log offset names one record for the store's life.
 */
final class RecentRecords {
    private static final int SLOTS = 256;

    private final AtomicReferenceArray<StoredMessage> slots = new AtomicReferenceArray<>(SLOTS);

    /** The decoded record at {@code logOffset}, or null when it was not read lately. */
    StoredMessage get(final long logOffset) {
        final StoredMessage m = slots.get(slot(logOffset));
        return m != null && m.commitLogOffset() == logOffset ? m : null;
    }

    void put(final StoredMessage message) {
        slots.set(slot(message.commitLogOffset()), message);
    }

    private static int slot(final long logOffset) {
        // Records are at least ~100 bytes apart: mixing the higher bits spreads neighbours over the slots.
        final long h = logOffset * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 56);
    }
}
