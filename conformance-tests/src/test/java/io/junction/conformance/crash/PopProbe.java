package io.junction.conformance.crash;

import static org.awaitility.Awaitility.await;

import io.junction.conformance.support.BrokerProcess;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * POP messages in flight across a crash. In one round the probe sends a few events to its own topic before the load
 * starts, and just before the kill receives them through a pull subscription (a POP group) without acking them. The
 * pop checkpoints were stored before the receive answered, so after the restart (or several) the messages must stay
 * invisible until their visibility time has passed, and then come back. From the next round on, {@link #watch}
 * receives on the subscription, acks whatever comes, and notes when each probe message reappears.
 */
final class PopProbe {
    static final String STREAM = "P";
    private static final int MESSAGES = 8;

    private final Ledger ledger;
    private final Senders.CloudEventsPoster poster;
    private final PullSubscription subscription;
    private final String topic;
    private final Duration visibility;
    /** Probe id to the time its first receive answered (nanoTime). */
    private final Map<String, Long> poppedAt = new ConcurrentHashMap<>();
    /** Probe id to how long after {@link #poppedAt} it came back. */
    private final Map<String, Duration> backAfter = new ConcurrentHashMap<>();
    private final List<String> early = Collections.synchronizedList(new ArrayList<>());
    private final List<String> sent = new ArrayList<>();
    /** How long after the pop the first receive of {@link #watch} answered: how early the check began. */
    private volatile Duration firstWatched;

    PopProbe(final HttpClient http, final Ledger ledger, final String topic, final String subscription,
             final Duration visibility) {
        this.ledger = ledger;
        this.poster = new Senders.CloudEventsPoster(http, topic);
        this.subscription = new PullSubscription(http, subscription);
        this.topic = topic;
        this.visibility = visibility;
    }

    void createSubscription(final BrokerProcess broker) throws IOException, InterruptedException {
        subscription.create(broker, topic, (int) visibility.toSeconds());
    }

    /** Sends the probe messages (at the start of the probe round). */
    void send(final BrokerProcess broker, final int round, final Random random) throws Exception {
        for (int i = 0; i < MESSAGES; i++) {
            final Ledger.Outgoing m = ledger.attempt(STREAM, round, random);
            if (!poster.post(broker, m)) {
                throw new AssertionError("the broker refused probe event " + m.id());
            }
            ledger.acknowledged(m);
            sent.add(m.id());
        }
    }

    /** Receives all probe messages without acking them (just before the kill). */
    void popWithoutAck(final BrokerProcess broker, final int round) {
        await("probe messages popped").atMost(Duration.ofSeconds(20)).until(() -> {
            for (PullSubscription.Event e : subscription.receive(broker, MESSAGES, 1)) {
                ledger.delivered(e.data(), e.id(), "pop-probe@" + round);
                poppedAt.putIfAbsent(e.id(), System.nanoTime());
            }
            return poppedAt.keySet().containsAll(sent);
        });
    }

    boolean popped() {
        return !poppedAt.isEmpty();
    }

    boolean allBack() {
        return backAfter.keySet().containsAll(poppedAt.keySet());
    }

    /**
     * Receives and acks on the probe subscription until every probe message is back, {@code stop} is set, or the
     * broker dies (a receive fails); run on its own thread while a round's load runs.
     */
    void watch(final BrokerProcess broker, final int round, final AtomicBoolean stop) {
        try {
            while (!stop.get() && !allBack()) {
                final List<PullSubscription.Event> events = subscription.receive(broker, MESSAGES, 1);
                final long now = System.nanoTime();
                if (firstWatched == null) {
                    firstWatched = Duration.ofNanos(now - poppedAt.values().stream().mapToLong(t -> t).max()
                            .orElseThrow());
                }
                for (PullSubscription.Event e : events) {
                    ledger.delivered(e.data(), e.id(), "pop-probe-again@" + round);
                    final Long popped = poppedAt.get(e.id());
                    if (popped != null && !backAfter.containsKey(e.id())) {
                        final Duration after = Duration.ofNanos(now - popped);
                        backAfter.put(e.id(), after);
                        if (after.compareTo(visibility.dividedBy(2)) < 0) {
                            early.add(e.id() + " after " + after.toMillis() + " ms");
                        }
                    }
                }
                subscription.ack(broker, events);
            }
        } catch (final IOException e) {
            // the broker was killed under the receive: go on in the next round
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Probe messages that came back before half their visibility time. */
    List<String> early() {
        return List.copyOf(early);
    }

    /** When each probe message came back, for the log. */
    String describe() {
        final Map<String, Long> millis = new TreeMap<>();
        poppedAt.keySet().forEach(id -> millis.put(id, backAfter.containsKey(id)
                ? backAfter.get(id).toMillis() : -1));
        return "POP probe (visibility " + visibility.toSeconds() + " s): watched from "
                + (firstWatched == null ? "-" : firstWatched.toMillis()) + " ms after the pop; back after ms " + millis;
    }
}
