package io.junction.conformance.amqp;

import io.junction.conformance.support.BrokerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import org.apache.qpid.jms.JmsConnectionFactory;

/** One broker jar for a test class, and Qpid JMS connections to it. */
final class AmqpTestBroker implements AutoCloseable {
    static final Duration DEADLINE = Duration.ofSeconds(30);

    private final Path dir;
    private final Map<String, String> settings;
    private BrokerProcess process;

    private AmqpTestBroker(final Path dir, final Map<String, String> settings) {
        this.dir = dir;
        this.settings = settings;
    }

    static AmqpTestBroker start() {
        return start(Map.of());
    }

    /** A broker with extra {@code --set} settings. */
    static AmqpTestBroker start(final Map<String, String> settings) {
        try {
            final AmqpTestBroker broker = new AmqpTestBroker(Files.createTempDirectory("junction-amqp-it"),
                    new LinkedHashMap<>(settings));
            broker.launch(null, null);
            return broker;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Restarts on the same data directory and ports (a clean stop, then a new process). */
    void restart() {
        final String amqp = process.setting("amqp.port");
        final String remoting = process.setting("remoting.port");
        process.terminate(DEADLINE);
        process.close();
        launch(amqp, remoting);
    }

    private void launch(final String amqpPort, final String remotingPort) {
        final BrokerProcess.Builder b = BrokerProcess.builder(dir.resolve("data"));
        settings.forEach(b::set);
        if (amqpPort != null) {
            b.set("amqp.port", amqpPort);
            b.set("remoting.port", remotingPort);
        }
        process = b.start();
        try {
            process.awaitHealthy(DEADLINE);
        } catch (final RuntimeException | AssertionError e) {
            process.close();
            throw e;
        }
    }

    int port() {
        return Integer.parseInt(process.setting("amqp.port"));
    }

    String uri() {
        return "amqp://127.0.0.1:" + port();
    }

    BrokerProcess process() {
        return process;
    }

    JmsConnectionFactory factory() {
        return factory("");
    }

    /** A factory whose URI carries extra options, e.g. {@code jms.prefetchPolicy.all=0}. */
    JmsConnectionFactory factory(final String options) {
        return new JmsConnectionFactory(uri() + (options.isEmpty() ? "" : "?" + options));
    }

    /** A started connection. */
    Connection connect() throws JMSException {
        final Connection c = factory().createConnection();
        c.start();
        return c;
    }

    /** A started connection with a client id (durable subscriptions). */
    Connection connect(final String clientId) throws JMSException {
        final Connection c = factory().createConnection();
        c.setClientID(clientId);
        c.start();
        return c;
    }

    @Override
    public void close() {
        process.close();
    }
}
