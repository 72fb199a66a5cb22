package io.junction.core.queue;

/**
 * The queues that got entries during one dispatch pass, each told to the {@link Dispatcher.ArrivalListener} once at
 * the end of the pass rather than once per record: a reader woken by the first of a burst of records then finds the
 * whole burst indexed, so it reads (and a front-end writes) them together instead of one wake-up, one read and one
 * network write per record. A pass that touches many queues, or many records, tells what it has so far every
 * {@link #MAX_RECORDS} records so long catch-up passes do not hold readers back. Used by the dispatcher thread only.
 */
final class Arrivals {
    /** Distinct queues remembered before the pass tells them early. */
    private static final int MAX_QUEUES = 64;
    /** Records indexed before the pass tells what it has so far. */
    private static final int MAX_RECORDS = 1024;

    private final Dispatcher.ArrivalListener listener;
    private final String[] topics = new String[MAX_QUEUES];
    private final int[] queueIds = new int[MAX_QUEUES];
    private int queues;
    private int records;

    Arrivals(final Dispatcher.ArrivalListener listener) {
        this.listener = listener;
    }

    /** A record of the queue was indexed. */
    void add(final String topic, final int queueId) {
        if (!contains(topic, queueId)) {
            if (queues == MAX_QUEUES) {
                tellAll();
            }
            topics[queues] = topic;
            queueIds[queues] = queueId;
            queues++;
        }
        if (++records >= MAX_RECORDS) {
            tellAll();
        }
    }

    /** Tells every queue remembered since the last call, once each. */
    void tellAll() {
        for (int i = 0; i < queues; i++) {
            listener.arrived(topics[i], queueIds[i]);
            topics[i] = null;
        }
        queues = 0;
        records = 0;
    }

    private boolean contains(final String topic, final int queueId) {
        // Few queues per pass (usually one or two): a linear scan, most recent first, beats hashing.
        for (int i = queues - 1; i >= 0; i--) {
            if (queueIds[i] == queueId && topics[i].equals(topic)) {
                return true;
            }
        }
        return false;
    }
}
