package io.junction.conformance.cluster;

import io.junction.conformance.support.RunningBroker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One protocol's continuous load through the proxies: a producer thread sending one message after another (each
 * waits for its acknowledgement) and a consumer thread receiving, each client homed on a proxy. When its client fails
 * (its proxy was killed) a loop closes it and connects again to its home, which the test moves to the surviving
 * proxy: that is the client "reconnecting to the other proxy". Nothing is retried by the loops: a failed send is
 * counted as attempted, not acknowledged (it may still have been stored).
 *
 * <p>The consumer's stall is the longest time between two receipts while the producers run, counted from its first
 * receipt; the one wait spanning a move of its home (its proxy's death until it reads again through the other) is
 * left out and reported on its own. A stream without a consumer connector is read by the test itself (the offset
 * consumer reading every queue).
 */
final class LoadStream {
    /** A connected producer. */
    interface Sender {
        /** Sends {@code body}; true only when the protocol acknowledged it. */
        boolean send(String body) throws Exception;

        /** Closes the client, swallowing what a dead proxy causes. */
        void close();
    }

    /** A connected consumer: receives (waiting up to about a second), acknowledges, answers the bodies. */
    interface Receiver {
        List<String> receive() throws Exception;

        void close();
    }

    /** Connects a client to a proxy. */
    @FunctionalInterface
    interface Connector<T> {
        T connect(RunningBroker proxy) throws Exception;
    }

    private static final long RECONNECT_PAUSE_MILLIS = 100;
    private static final long FIRST_CONNECT_MILLIS = 30_000;

    private final String name;
    private final Connector<Sender> producerConnector;
    private final Connector<Receiver> consumerConnector;
    private volatile RunningBroker producerHome;
    private volatile RunningBroker consumerHome;
    private final List<String> acked = new CopyOnWriteArrayList<>();
    private final Set<String> attempted = ConcurrentHashMap.newKeySet();
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final AtomicLong failedSends = new AtomicLong();
    /** Each send as {began, ended, 1 if acknowledged} in nanoseconds. */
    private final List<long[]> sends = new CopyOnWriteArrayList<>();
    private final AtomicLong longestStallMillis = new AtomicLong();
    private volatile long longestStallEndedNanos;
    private final AtomicLong movedWaitMillis = new AtomicLong(-1);
    /** Set when the consumer's home moves: the next wait is the reconnection, not a stall. */
    private volatile boolean consumerMoving;
    private final List<Thread> threads = new ArrayList<>();

    LoadStream(final String name, final RunningBroker producerHome, final Connector<Sender> producerConnector,
               final RunningBroker consumerHome, final Connector<Receiver> consumerConnector) {
        this.name = name;
        this.producerHome = producerHome;
        this.producerConnector = producerConnector;
        this.consumerHome = consumerHome;
        this.consumerConnector = consumerConnector;
    }

    String name() {
        return name;
    }

    /**
     * Starts both loops: the producer until {@code producing} turns false, the consumer until {@code consuming}
     * does. The consumer is connected first (at once, on this thread), so a subscription that only sees what is
     * published after it exists (MQTT) misses nothing.
     */
    void start(final AtomicBoolean producing, final AtomicBoolean consuming) throws Exception {
        if (consumerConnector != null) {
            final Receiver first = firstConsumer();
            threads.add(new Thread(() -> consume(first, producing, consuming), "elastic-" + name + "-consumer"));
        }
        threads.add(new Thread(() -> produce(producing), "elastic-" + name + "-producer"));
        threads.forEach(Thread::start);
    }

    /**
     * Connects the consumer, again after a failure for up to {@link #FIRST_CONNECT_MILLIS}: a client's own start can
     * time out while the machine's two cores run several brokers (rocketmq-client-java then shuts itself down), which
     * the loops below ride out by connecting again, and so does the first connection.
     */
    private Receiver firstConsumer() throws Exception {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FIRST_CONNECT_MILLIS);
        while (true) {
            try {
                return consumerConnector.connect(consumerHome);
            } catch (Exception e) {
                if (System.nanoTime() >= deadline) {
                    throw e;
                }
                pause();
            }
        }
    }

    /** Clients homed on {@code dead} connect to {@code alive} from now on. */
    void moveHome(final RunningBroker dead, final RunningBroker alive) {
        if (producerHome == dead) {
            producerHome = alive;
        }
        if (consumerHome == dead) {
            consumerMoving = true;
            consumerHome = alive;
        }
    }

    boolean consumesOn(final RunningBroker proxy) {
        return consumerHome == proxy;
    }

    void join() throws InterruptedException {
        for (Thread t : threads) {
            t.join();
        }
    }

    private void produce(final AtomicBoolean producing) {
        Sender sender = null;
        int sequence = 0;
        while (producing.get()) {
            if (sender == null) {
                try {
                    sender = producerConnector.connect(producerHome);
                } catch (Exception e) {
                    pause(); // the proxy is dead and the home not moved yet, or it is not serving yet
                    continue;
                }
            }
            final String body = name + "-" + sequence++;
            attempted.add(body);
            boolean ok = false;
            final long began = System.nanoTime();
            try {
                ok = sender.send(body);
            } catch (Exception e) {
                // the client broke (its proxy died) or the send failed: connect again
            }
            sends.add(new long[] {began, System.nanoTime(), ok ? 1 : 0});
            if (ok) {
                acked.add(body);
            } else {
                failedSends.incrementAndGet();
                sender.close();
                sender = null;
                pause();
            }
        }
        if (sender != null) {
            sender.close();
        }
    }

    private void consume(final Receiver first, final AtomicBoolean producing, final AtomicBoolean consuming) {
        Receiver receiver = first;
        long last = -1;
        while (consuming.get()) {
            if (receiver == null) {
                try {
                    receiver = consumerConnector.connect(consumerHome);
                } catch (Exception e) {
                    pause();
                    continue;
                }
            }
            List<String> batch;
            try {
                batch = receiver.receive();
            } catch (Exception e) {
                receiver.close();
                receiver = null;
                pause();
                continue;
            }
            final long now = System.nanoTime();
            if (batch.isEmpty()) {
                if (last >= 0 && producing.get() && !consumerMoving) {
                    record(TimeUnit.NANOSECONDS.toMillis(now - last), now);
                }
                continue;
            }
            received.addAll(batch);
            if (last >= 0 && producing.get()) {
                final long waited = TimeUnit.NANOSECONDS.toMillis(now - last);
                if (consumerMoving) {
                    movedWaitMillis.set(waited);
                    consumerMoving = false;
                } else {
                    record(waited, now);
                }
            }
            last = now;
        }
        if (receiver != null) {
            receiver.close();
        }
    }

    private void record(final long waitedMillis, final long now) {
        if (waitedMillis > longestStallMillis.get()) {
            longestStallMillis.set(waitedMillis);
            longestStallEndedNanos = now;
        }
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(RECONNECT_PAUSE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Acknowledged bodies, in send order. */
    List<String> acked() {
        return acked;
    }

    /** Bodies the producer sent, acknowledged or not. */
    Set<String> attempted() {
        return attempted;
    }

    /** Received bodies in order, redeliveries included. */
    List<String> received() {
        return received;
    }

    /** The longest send (ms) in progress at some moment between {@code from} and {@code to} (nanoseconds). */
    long longestSendSpanning(final long from, final long to) {
        return sends.stream().filter(t -> t[1] >= from && t[0] <= to)
                .mapToLong(t -> TimeUnit.NANOSECONDS.toMillis(t[1] - t[0])).max().orElse(0);
    }

    /** Milliseconds from {@code from} (nanoseconds) to the first acknowledgement of a send begun after it, -1 none. */
    long firstAckAfter(final long from) {
        return sends.stream().filter(t -> t[2] == 1 && t[0] - from > 0)
                .mapToLong(t -> TimeUnit.NANOSECONDS.toMillis(t[1] - from)).min().orElse(-1);
    }

    long failedSends() {
        return failedSends.get();
    }

    /** Bodies received more than once, with their extra count. */
    Map<String, Integer> duplicates() {
        final Map<String, Integer> seen = new HashMap<>();
        for (String body : received) {
            seen.merge(body, 1, Integer::sum);
        }
        seen.values().removeIf(n -> n == 1);
        seen.replaceAll((body, n) -> n - 1);
        return seen;
    }

    long longestStallMillis() {
        return longestStallMillis.get();
    }

    long longestStallEndedNanos() {
        return longestStallEndedNanos;
    }

    /** The consumer's wait across its home's move (its proxy's death to its first receipt through the other), -1 none. */
    long movedWaitMillis() {
        return movedWaitMillis.get();
    }
}
