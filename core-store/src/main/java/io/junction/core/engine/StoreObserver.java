package io.junction.core.engine;

/**
 * Receives store events for metrics. Calls come from the store's own threads and must return quickly.
 */
public interface StoreObserver {
    /** Does nothing. */
    StoreObserver NONE = new StoreObserver() {
    };

    /** A message of {@code bytes} bytes was stored in {@code topic}; {@code nanos} from send to durable. */
    default void messageStored(final String topic, final int bytes, final long nanos) {
    }

    /** {@code count} messages of {@code bytes} in total were handed to consumers of {@code topic}. */
    default void messagesDelivered(final String topic, final int count, final long bytes) {
    }
}
