package io.junction.conformance.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.junction.conformance.history.History;
import io.junction.conformance.support.BrokerProcess;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10: SIGKILL of the broker under mixed load with SYNC flush loses no acknowledged message, on any protocol.
 *
 * <p>One data directory, many rounds. Each round starts the broker (recovering from the previous kill), then runs
 * for a random 0.5 to 2.5 s: a Remoting producer doing sync sends to topic A, an MQTT publisher at QoS 1 (every
 * fourth message QoS 2) to topic B, a JMS producer doing persistent sends to queue C and an HTTP client posting
 * binary CloudEvents to topic D, while a persistent MQTT session (subscribed to B once, in the first round) and a JMS
 * consumer of C take deliveries; then the broker is killed with SIGKILL, whatever is in flight. In one of the first
 * rounds a {@link PopProbe} leaves POP messages in flight across the kill. After the last kill the broker starts
 * once more and everything is drained: A with a fresh Remoting consumer group from the first offset, B from the same
 * MQTT session, C through the same JMS queue, D through a pull subscription made in the first round. Then the
 * {@link Ledger}'s verdict: no acknowledged message lost, each delivered body equal to what was sent, no message
 * nobody sent, B's first deliveries in publish order; duplicates are counted and allowed where delivery is
 * at-least-once (the MQTT session, the JMS queue, the probe), not where a fresh reader reads the store once (A, D).
 * The broker must not log an ERROR in any round, and stops cleanly after the drain.
 *
 * <p>Rounds: {@code -Djunction.crash.kills} (default 10); the seed of every random choice (kill moments, message
 * sizes, the probe round) is printed, {@code -Djunction.crash.seed} replays it.
 */
@Tag("crash")
class CrossProtocolCrashIT {
    private static final String TOPIC_A = "crashA";
    private static final String TOPIC_B = "crashB";
    private static final String QUEUE_C = "crashC";
    private static final String TOPIC_D = "crashD";
    private static final String TOPIC_PROBE = "crashProbe";
    private static final Duration PROBE_VISIBILITY = Duration.ofSeconds(20);
    private static final Duration DRAIN_DEADLINE = Duration.ofSeconds(90);
    /** A round's producers and consumers end within this after the kill (their clients fail fast or time out). */
    private static final Duration ROUND_END_DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        final Thread t = new Thread(r, "crash-load");
        t.setDaemon(true);
        return t;
    });
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).executor(threads).build();
    private final Ledger ledger = new Ledger();
    /** Things that went wrong along the way, asserted empty at the end (so one run reports all of them). */
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    /** Per round: deliveries to the MQTT session and to the JMS consumer while the load ran. */
    private final List<int[]> consumedPerRound = new ArrayList<>();
    /** The rounds' clients being closed in the background. */
    private final List<Future<?>> closing = new ArrayList<>();

    private CrashBroker broker;
    private PopProbe probe;
    private PullSubscription subscriptionD;

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    // Every wait below has its own deadline; the JUnit time-out only has to leave room for a long manual run.
    @Test
    @Timeout(value = 3, unit = TimeUnit.HOURS)
    void shouldKeepEveryAcknowledgedMessageAcrossKillsOnEveryProtocol() throws Exception {
        final KillRounds rounds = KillRounds.fromSystemProperties("CrossProtocolCrashIT", 10);
        final int kills = rounds.kills();
        final int probeRound = 1 + rounds.random().nextInt((kills + 1) / 2);
        broker = new CrashBroker(dir.resolve("data"));
        probe = new PopProbe(http, ledger, TOPIC_PROBE, "crash-probe", PROBE_VISIBILITY);
        subscriptionD = new PullSubscription(http, "crash-d");
        ledger.ordered("B"); // one MQTT topic is one queue: its messages arrive in publish order
        final long started = System.nanoTime();

        rounds.run(round -> killRound(round, round == probeRound, rounds));
        drainAfterRestart();
        for (Future<?> f : closing) {
            f.get(30, TimeUnit.SECONDS);
        }
        System.out.println("CrossProtocolCrashIT: " + kills + " kills and the drain took "
                + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + " s");

        final Ledger.Verdict verdict = ledger.verdict();
        final History.Report report = verdict.report();
        System.out.println("CrossProtocolCrashIT verdict: acknowledged " + report.acknowledged() + ", deliveries "
                + report.delivered() + ", lost " + report.lost().size() + ", out of order " + report.outOfOrder().size()
                + ", never sent " + verdict.foreign().size() + ", wrong content " + verdict.wrongContent().size()
                + "; delivered though not acknowledged (stored just before a kill) " + verdict.recoveredByStream()
                + "; extra deliveries (at-least-once) " + verdict.duplicatesByStream());
        System.out.println(probe.describe());
        // The broker keeps QoS 2 exactly once across a crash on the wire (Chapter4_3_Qos2CrashIT): what was in flight
        // comes again with DUP and its packet id, what was completed does not come again. But this test's subscriber
        // is a new client object after each kill, without the packet ids it had received: a QoS 2 message in flight
        // at a kill reaches it twice. Counted and shown, like the QoS 1 duplicates, not failed.
        System.out.println("  MQTT QoS 2 messages delivered again after a crash: " + report.duplicates()
                .entrySet().stream().filter(e -> Ledger.streamOf(e.getKey()).equals("B")
                        && Ledger.sequenceOf(e.getKey()) % Senders.MQTT_QOS2_EVERY == 0)
                .mapToInt(e -> e.getValue() - 1).sum());
        for (String stream : List.of("A", "B", "C", "D", PopProbe.STREAM)) {
            System.out.println("  stream " + stream + ": attempted " + ledger.attemptedCount(stream)
                    + ", acknowledged " + ledger.acknowledgedCount(stream));
            assertThat(ledger.acknowledgedCount(stream)).as("acknowledged sends of stream %s", stream).isPositive();
        }
        assertThat(problems).as("problems during the rounds").isEmpty();
        assertThat(report.lost()).as("acknowledged messages lost").isEmpty();
        assertThat(verdict.wrongContent()).as("messages delivered with other bytes or ids than sent").isEmpty();
        assertThat(verdict.unreadable()).as("deliveries without an id").isEmpty();
        assertThat(verdict.foreign()).as("delivered messages nobody sent").isEmpty();
        assertThat(report.outOfOrder()).as("MQTT first deliveries out of publish order").isEmpty();
        assertThat(verdict.duplicates("A")).as("A read once by a fresh group: duplicates mean stored twice")
                .isZero();
        assertThat(verdict.duplicates("D")).as("D read once by a fresh subscription: duplicates mean stored twice")
                .isZero();
        assertThat(probe.allBack()).as("POP probe messages back after their visibility time").isTrue();
        assertThat(probe.early()).as("POP probe messages back before half their visibility time").isEmpty();
        if (kills >= 2) {
            // Deliveries resume: both consumers got messages in rounds that began after a kill.
            assertThat(consumedPerRound.subList(1, kills).stream().mapToInt(c -> c[0]).sum())
                    .as("MQTT session deliveries after the first kill").isPositive();
            assertThat(consumedPerRound.subList(1, kills).stream().mapToInt(c -> c[1]).sum())
                    .as("JMS consumer deliveries after the first kill").isPositive();
        }
    }

    /** One round: start (recover), load with consumers running, SIGKILL at a random moment, clean up. */
    private void killRound(final int round, final boolean probeRound, final KillRounds rounds) throws Exception {
        final long killAfterMillis = rounds.nextKillDelayMillis();
        final Random random = rounds.random();
        final long roundStarted = System.nanoTime();
        final BrokerProcess process = broker.start();
        final long healthyAfter = millisSince(roundStarted);
        final AtomicBoolean stop = new AtomicBoolean();
        final List<AutoCloseable> clients = new ArrayList<>();
        final List<ProducerLoop> loops = new ArrayList<>();
        final List<Future<?>> tasks = new ArrayList<>();
        try {
            if (round == 1) {
                subscriptionD.create(process, TOPIC_D, 30);
                probe.createSubscription(process);
            }
            // Clients connect in parallel (mostly network round trips); each one made is closed, even if another fails.
            final Future<MqttSession> sessionConnect = threads.submit(
                    () -> MqttSession.connect(process, TOPIC_B, ledger, "mqtt-session@" + round));
            final Future<JmsQueueConsumer> jmsConnect = threads.submit(
                    () -> JmsQueueConsumer.open(process, QUEUE_C, ledger, "jms@" + round));
            final List<Future<Sender>> senderConnects = List.of(
                    threads.submit(() -> Senders.remoting(process, TOPIC_A, round, round == 1)),
                    threads.submit(() -> Senders.mqtt(process, TOPIC_B, round)),
                    threads.submit(() -> Senders.jms(process, QUEUE_C)),
                    threads.submit(() -> Senders.cloudEvents(process, http, TOPIC_D)));
            final List<Throwable> failures = new ArrayList<>();
            final MqttSession session = connected(sessionConnect, clients, failures);
            final JmsQueueConsumer jms = connected(jmsConnect, clients, failures);
            final List<String> streams = List.of("A", "B", "C", "D");
            for (int i = 0; i < streams.size(); i++) {
                loops.add(new ProducerLoop(streams.get(i), round, connected(senderConnects.get(i), clients, failures),
                        ledger, new Random(random.nextLong()), stop));
            }
            if (!failures.isEmpty()) {
                throw new AssertionError("round " + round + ": a client could not connect", failures.get(0));
            }
            if (round > 1 && !session.sessionPresent()) {
                problems.add("round " + round + ": the persistent MQTT session was gone after the restart");
            }
            if (probeRound) {
                probe.send(process, round, random);
            } else if (probe.popped() && !probe.allBack()) {
                tasks.add(threads.submit(() -> probe.watch(process, round, stop)));
            }
            tasks.add(threads.submit(() -> jms.runUntil(stop)));
            final long loadStarted = System.nanoTime();
            loops.forEach(l -> tasks.add(threads.submit(l)));

            // The random kill moment (a sleep, not a wait for anything); the probe pops just before it, so its
            // messages are in flight when the broker dies and their invisible time runs mostly while it is down.
            final long killAt = loadStarted + TimeUnit.MILLISECONDS.toNanos(killAfterMillis);
            if (probeRound) {
                sleepUntil(killAt - TimeUnit.MILLISECONDS.toNanos(300));
                probe.popWithoutAck(process, round);
            }
            sleepUntil(killAt);
            final long killedAt = System.nanoTime();
            process.kill();
            stop.set(true);
            for (Future<?> task : tasks) {
                task.get(ROUND_END_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            }
            consumedPerRound.add(new int[] {session.deliveries(), jms.deliveries()});
            final StringBuilder line = new StringBuilder("round " + round + ": healthy after " + healthyAfter
                    + " ms, clients ready after " + TimeUnit.NANOSECONDS.toMillis(loadStarted - roundStarted)
                    + " ms, killed after " + TimeUnit.NANOSECONDS.toMillis(killedAt - loadStarted)
                    + " ms of load (planned " + killAfterMillis + "), load ended after "
                    + millisSince(killedAt) + " ms; acknowledged");
            for (ProducerLoop l : loops) {
                line.append(' ').append(l.stream()).append('=').append(l.acknowledged());
                if (l.refused() > 0) {
                    line.append(" (refused ").append(l.refused()).append(')');
                }
                final Exception early = l.failedBefore(killedAt);
                if (early != null) {
                    problems.add("round " + round + ": producer " + l.stream() + " failed before the kill: " + early);
                }
            }
            line.append("; consumed mqtt=").append(session.deliveries()).append(" jms=").append(jms.deliveries());
            System.out.println(line);
        } finally {
            stop.set(true);
            if (process.isAlive()) {
                process.kill();
            }
            // Closed in the background while the next broker starts: the Remoting producer alone spends its 3 s
            // API time-out trying to unregister from the dead broker.
            Collections.reverse(clients);
            closing.add(threads.submit(() -> {
                for (AutoCloseable c : clients) {
                    c.close();
                }
                return null;
            }));
            CrashBroker.loggedErrors(process).forEach(l -> problems.add("round " + round + ": broker logged " + l));
            process.close();
            System.out.println("round " + round + " took " + millisSince(roundStarted) + " ms");
        }
    }

    /**
     * The client a connect task made, registered for closing; null when it failed (the failure is added to
     * {@code failures}), so the other clients are still collected and closed.
     */
    private static <T extends AutoCloseable> T connected(final Future<T> connect, final List<AutoCloseable> clients,
                                                         final List<Throwable> failures) throws InterruptedException {
        try {
            final T client = connect.get(CrashBroker.START_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            clients.add(client);
            return client;
        } catch (final ExecutionException e) {
            failures.add(e.getCause());
        } catch (final TimeoutException e) {
            failures.add(e);
        }
        return null;
    }

    /** The last start: every stream drained, all at once, each until its acknowledged messages have all arrived. */
    private void drainAfterRestart() throws Exception {
        final BrokerProcess process = broker.start();
        final AtomicBoolean stop = new AtomicBoolean();
        MqttSession session = null;
        JmsQueueConsumer jms = null;
        try {
            session = MqttSession.connect(process, TOPIC_B, ledger, "mqtt-session-drain");
            if (!session.sessionPresent()) {
                problems.add("final start: the persistent MQTT session was gone after the restart");
            }
            jms = JmsQueueConsumer.open(process, QUEUE_C, ledger, "jms-drain");
            final MqttSession mqtt = session;
            final JmsQueueConsumer queue = jms;
            final List<Future<?>> drains = new ArrayList<>();
            drains.add(threads.submit(() -> {
                RemotingDrain.drain(process, TOPIC_A, "A", ledger, DRAIN_DEADLINE);
                return null;
            }));
            drains.add(threads.submit(() -> await("MQTT session drained").atMost(DRAIN_DEADLINE)
                    .until(() -> ledger.allAcknowledgedDelivered("B") && mqtt.quietFor(1000))));
            drains.add(threads.submit(() -> {
                queue.drain("C", DRAIN_DEADLINE);
                return null;
            }));
            drains.add(threads.submit(() -> {
                drainCloudEvents(process);
                return null;
            }));
            drains.add(threads.submit(() -> {
                while (!probe.allBack() && !stop.get()) {
                    probe.watch(process, 0, stop);
                }
            }));
            for (int i = 0; i < drains.size() - 1; i++) {
                drains.get(i).get(DRAIN_DEADLINE.toMillis() + 10_000, TimeUnit.MILLISECONDS);
            }
            await("POP probe messages back").atMost(PROBE_VISIBILITY.plusSeconds(60)).until(probe::allBack);
            stop.set(true);
            drains.get(drains.size() - 1).get(10, TimeUnit.SECONDS);
            session.close();
            session = null;
            jms.close();
            jms = null;
            assertThat(process.terminate(Duration.ofSeconds(30))).as("exit code of a graceful stop after the drain")
                    .isZero();
        } finally {
            stop.set(true);
            if (session != null) {
                session.close();
            }
            if (jms != null) {
                jms.close();
            }
            CrashBroker.loggedErrors(process).forEach(l -> problems.add("final start: the broker logged " + l));
            process.close();
        }
    }

    /** Reads topic D through the pull subscription made in the first round, acking as it goes. */
    private void drainCloudEvents(final BrokerProcess process) throws Exception {
        final long end = System.nanoTime() + DRAIN_DEADLINE.toNanos();
        while (System.nanoTime() < end) {
            final List<PullSubscription.Event> events = subscriptionD.receive(process, 32, 1);
            for (PullSubscription.Event e : events) {
                ledger.delivered(e.data(), e.id(), "cloudevents-drain");
            }
            subscriptionD.ack(process, events);
            if (events.isEmpty() && ledger.allAcknowledgedDelivered("D")) {
                return;
            }
        }
        throw new AssertionError("CloudEvents drain of " + TOPIC_D + ": " + ledger.missing("D")
                + " acknowledged messages still missing after " + DRAIN_DEADLINE);
    }

    private static void sleepUntil(final long nanoTime) throws InterruptedException {
        final long left = nanoTime - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private static long millisSince(final long nanoTime) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanoTime);
    }
}
