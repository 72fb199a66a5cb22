package io.junction.spi;

import io.junction.spi.config.ConfigKey;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One protocol the broker speaks, found with {@link java.util.ServiceLoader}.
 *
 * <p>Lifecycle: the broker creates each front-end with its no-argument constructor (keep it cheap: nothing is bound or
 * started there), calls {@link #start} at most once, and calls {@link #stop} once on shutdown, also when {@code start}
 * failed, so a front-end releases whatever it had opened. Both run on a broker thread, never an event loop.
 */
public interface ProtocolFrontEnd {

    /**
     * The front-end's name: its configuration prefix ({@code <name>.enabled}, {@code <name>.port}), its metrics tag and
     * its label in the ready line. Lower case, e.g. {@code remoting}, {@code grpc}, {@code mqtt}, {@code amqp},
     * {@code http-cloudevents}.
     */
    String name();

    /**
     * Configuration keys this front-end reads beyond {@code <name>.enabled} (which the broker always declares), each
     * named {@code <name>.<something>}. The broker rejects keys nobody declared, documents these in {@code --help} and
     * validates their values before anything starts. The broker's own table already declares {@code <name>.port} for
     * the standard front-ends; declaring a key twice keeps the broker's entry.
     */
    default List<ConfigKey> configKeys() {
        return List.of();
    }

    /**
     * Binds the front-end's listeners (or registers its HTTP routes). The future completes once clients can connect,
     * with the endpoints to print in the ready line, or exceptionally with a message that names the address that could
     * not be bound.
     */
    CompletableFuture<List<Endpoint>> start(BrokerContext context);

    /**
     * Stops gracefully: stop accepting, finish or refuse in-flight requests, close connections. The broker closes the
     * store only after the future completes (or a timeout passes).
     */
    CompletableFuture<Void> stop();
}
