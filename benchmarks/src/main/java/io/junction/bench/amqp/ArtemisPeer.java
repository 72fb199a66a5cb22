package io.junction.bench.amqp;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.JournalType;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;

/**
 * ActiveMQ Artemis embedded as the benchmark peer: one AMQP acceptor on 127.0.0.1, persistence on (NIO journal,
 * synced before a durable send is acknowledged, Artemis' default), security off, addresses and queues auto-created
 * (anycast by default, as a JMS queue). Prints {@code ARTEMIS READY} once it accepts connections and runs until it
 * is killed.
 *
 * <p>Usage: {@code ArtemisPeer <amqp-port> <data-dir> [<mqtt-port>]}; with an MQTT port, an MQTT acceptor too (the
 * MQTT side by side, scripts/mqtt-side-by-side.sh).
 */
public final class ArtemisPeer {
    private ArtemisPeer() {
    }

    public static void main(final String[] args) throws Exception {
        final int port = Integer.parseInt(args[0]);
        final Path dir = Files.createDirectories(Path.of(args[1]));
        final Configuration config = new ConfigurationImpl()
                .setPersistenceEnabled(true)
                .setJournalType(JournalType.NIO)
                .setJournalDatasync(true)
                .setJournalDirectory(dir.resolve("journal").toString())
                .setBindingsDirectory(dir.resolve("bindings").toString())
                .setLargeMessagesDirectory(dir.resolve("large").toString())
                .setPagingDirectory(dir.resolve("paging").toString())
                .setSecurityEnabled(false)
                .setCriticalAnalyzer(false)
                .addAcceptorConfiguration("amqp", "tcp://127.0.0.1:" + port + "?protocols=AMQP");
        if (args.length > 2) {
            config.addAcceptorConfiguration("mqtt", "tcp://127.0.0.1:" + Integer.parseInt(args[2]) + "?protocols=MQTT");
        }
        config.addAddressSetting("#", new AddressSettings()
                .setAutoCreateAddresses(true)
                .setAutoCreateQueues(true)
                .setDefaultAddressRoutingType(RoutingType.ANYCAST)
                .setDefaultQueueRoutingType(RoutingType.ANYCAST));
        if (args.length > 2) {
            // MQTT topics are publish-subscribe: the load's topics (bench/...) are multicast addresses, whatever the
            // JMS-queue default above says.
            config.addAddressSetting("bench.#", new AddressSettings()
                    .setAutoCreateAddresses(true)
                    .setAutoCreateQueues(true)
                    .setDefaultAddressRoutingType(RoutingType.MULTICAST)
                    .setDefaultQueueRoutingType(RoutingType.MULTICAST));
        }
        final EmbeddedActiveMQ server = new EmbeddedActiveMQ();
        server.setConfiguration(config);
        server.start();
        System.out.println("ARTEMIS READY on " + port);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.stop();
            } catch (Exception e) {
                e.printStackTrace();
            }
        }));
        Thread.currentThread().join();
    }
}
