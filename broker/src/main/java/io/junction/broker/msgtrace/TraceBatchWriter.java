package io.junction.broker.msgtrace;

import io.junction.core.Messaging;
import io.junction.core.message.Message;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores trace records in batches: callers (event loops, store threads) only {@link #offer} a record to a bounded
 * queue, and one thread of its own drains it — after {@code lingerMillis} or as soon as {@code maxRecords} wait — and
 * sends what it drained as a few trace messages packed by {@link TracePacker}, without waiting for them to be stored.
 *
 * <p>Why: one trace message per event cost the traced topic two or three extra log appends per message (a third or
 * more of its throughput); packed, a hundred events cost one append. The price is that a record becomes visible a few
 * milliseconds later.
 *
 * <p>Nothing here may slow or fail the traced message: a full queue drops the record, and at most
 * {@code maxInFlight} trace messages are being stored at once (while they are, the queue fills and drops). Every
 * dropped record is counted ({@link #dropped}).
 */
public final class TraceBatchWriter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TraceBatchWriter.class);

    /** Sizes and timing of the batches. */
    public record Settings(int queueCapacity, int maxRecords, Duration linger, int maxInFlight) {

        /** RocketMQ's client packs up to 100 records a message; its queue holds a few thousand. */
        public static final Settings DEFAULT = new Settings(32_768, 100, Duration.ofMillis(5), 8);
    }

    private final Messaging core;
    private final Settings settings;
    private final TraceRecordQueue queue;
    private final Semaphore inFlight;
    private final AtomicLong stored = new AtomicLong();
    private final Thread drainer;

    public TraceBatchWriter(final Messaging core, final Settings settings) {
        this.core = core;
        this.settings = settings;
        this.queue = new TraceRecordQueue(settings.queueCapacity());
        this.inFlight = new Semaphore(settings.maxInFlight());
        this.drainer = new Thread(this::drainLoop, "junction-trace-writer");
        drainer.setDaemon(true);
        drainer.start();
    }

    /** Queues one record; never blocks: when the queue is full (or the writer closed) the record is dropped. */
    void offer(final String traceTopic, final String data, final String msgId, final String keys) {
        queue.offer(TracePacker.Entry.of(traceTopic, data, msgId, keys));
    }

    /** Queues one record whose text is formatted later, on the writer's thread; never blocks. */
    void offer(final String traceTopic, final TracePacker.Text text, final String msgId, final String keys) {
        queue.offer(new TracePacker.Entry(traceTopic, text, msgId, keys));
    }

    /** Records dropped since the start: the queue was full, or their trace message could not be stored. */
    public long dropped() {
        return queue.dropped();
    }

    /** Records stored since the start (inside trace messages the core acknowledged). */
    public long stored() {
        return stored.get();
    }

    private void drainLoop() {
        final List<TracePacker.Entry> batch = new ArrayList<>(settings.maxRecords());
        try {
            while (!queue.isClosed() || !queue.isEmpty()) {
                if (queue.take(batch, settings.maxRecords(), 100, settings.linger().toNanos())) {
                    send(batch);
                    batch.clear();
                }
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        queue.dropped(batch.size()); // closed while these waited: not written
        queue.discard();
    }

    private void send(final List<TracePacker.Entry> batch) throws InterruptedException {
        for (final List<TracePacker.Entry> sameTopic : byTraceTopic(batch)) {
            int from = 0;
            TracePacker.Packed packed;
            while ((packed = TracePacker.pack(sameTopic, from)) != null) {
                from += packed.records();
                sendOne(packed);
            }
        }
    }

    /** The batch split by trace topic (nearly always one: the default topic), keeping each one's order. */
    private static Iterable<List<TracePacker.Entry>> byTraceTopic(final List<TracePacker.Entry> batch) {
        final String topic = batch.get(0).traceTopic();
        if (batch.stream().allMatch(e -> e.traceTopic().equals(topic))) {
            return List.of(batch);
        }
        final Map<String, List<TracePacker.Entry>> split = new LinkedHashMap<>();
        for (final TracePacker.Entry e : batch) {
            split.computeIfAbsent(e.traceTopic(), t -> new ArrayList<>()).add(e);
        }
        return split.values();
    }

    /** Sends one trace message once fewer than {@code maxInFlight} are being stored (waits on this thread only). */
    private void sendOne(final TracePacker.Packed packed) throws InterruptedException {
        if (packed.unwritable() > 0) {
            queue.dropped(packed.unwritable());
            LOG.warn("{} trace record(s) could not be written and were dropped", packed.unwritable());
        }
        final int written = packed.written();
        if (written == 0) {
            return;
        }
        while (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
            if (queue.isClosed()) {
                queue.dropped(written);
                return;
            }
        }
        try {
            core.send(Message.builder(packed.traceTopic()).body(packed.body()).keys(packed.keys()).build())
                    .whenComplete((r, e) -> {
                        inFlight.release();
                        if (e == null) {
                            stored.addAndGet(written);
                        } else {
                            queue.dropped(written);
                        }
                    });
        } catch (final RuntimeException e) {
            inFlight.release();
            queue.dropped(written);
            LOG.debug("A trace message to {} was refused", packed.traceTopic(), e);
        }
    }

    /** Writes what is queued (for up to two seconds), then stops; records offered after this are dropped. */
    @Override
    public void close() {
        queue.close();
        try {
            drainer.join(2_000);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        drainer.interrupt();
    }
}
