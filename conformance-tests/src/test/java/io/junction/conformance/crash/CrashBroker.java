package io.junction.conformance.crash;

import io.junction.conformance.support.BrokerProcess;
import io.junction.conformance.support.RocketMqClientLogs;
import io.junction.conformance.support.RunningBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The broker under test, started again and again on one data directory through the shared fixture
 * ({@link RunningBroker#startOnNewPorts()}). Each start gets fresh free ports (clients are made anew every round
 * anyway, and a port of a killed process may linger), and the store runs with SYNC flush:
 * an acknowledged send has been forced to disk, so no crash may lose it.
 */
final class CrashBroker {
    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    static final Duration START_DEADLINE = Duration.ofSeconds(60);
    /**
     * Each round's broker is a short-lived JVM: the client compiler alone starts it sooner and with less CPU, which
     * the two shared cores need more than peak speed.
     */
    private static final String[] JVM_ARGS = {"-Xmx384m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"};

    /**
     * Small log segments, consume-queue files and index files, so each rolls over several times during a run (a roll
     * is a crash point too); a short AMQP delivery timeout because a message the JMS client had prefetched when the
     * broker died comes back only after it.
     */
    private static final Map<String, String> SETTINGS = Map.of(
            "store.flush-mode", "SYNC",
            "store.segment-size", "1m",
            "store.max-message-size", "256k",
            "store.queue-file-entries", "256",
            "store.index-file-entries", "1024",
            "amqp.delivery-timeout-ms", "3000",
            "grpc.enabled", "false");

    private final Path dataDir;
    private RunningBroker running;

    CrashBroker(final Path dataDir) {
        this.dataDir = dataDir;
    }

    /**
     * Starts the broker and waits until it is healthy (it recovers from the previous crash first); the previous
     * round's process is closed first if its round did not. A port taken between choosing and binding it is retried
     * on other ports by {@link RunningBroker}: nothing of the store has changed by then.
     */
    BrokerProcess start() {
        if (running == null) {
            running = RunningBroker.builder().dataDir(dataDir).jvmArgs(JVM_ARGS).settings(SETTINGS)
                    .startDeadline(START_DEADLINE).start();
        } else {
            running.startOnNewPorts();
        }
        return running.process();
    }

    /**
     * The lines a broker logged at ERROR level (recovery or serving after a crash must not need any); read before
     * the process is closed.
     */
    static List<String> loggedErrors(final BrokerProcess broker) {
        return broker.stdout().lines().filter(l -> l.contains(" ERROR ")).toList();
    }

    static String nameServer(final BrokerProcess broker) {
        return "127.0.0.1:" + broker.setting("remoting.port");
    }

    static int mqttPort(final BrokerProcess broker) {
        return Integer.parseInt(broker.setting("mqtt.port"));
    }

    static String amqpUri(final BrokerProcess broker) {
        return "amqp://127.0.0.1:" + broker.setting("amqp.port");
    }
}
