package io.junction.spi;

import io.junction.core.Messaging;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.http.HttpRoutes;
import io.junction.spi.metrics.ConnectionCounter;
import io.junction.tenancy.AccessControl;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;

/**
 * What the broker hands one front-end at start. Each front-end gets its own context (its own configuration view and
 * connection counter); everything else is shared and owned by the broker: a front-end must not close it.
 */
public interface BrokerContext {

    /** The message core. All disk-touching calls are asynchronous; call them from event loops freely. */
    Messaging messaging();

    /** Authentication and authorization; ask it before every operation. */
    AccessControl accessControl();

    /** This front-end's keys ({@code <name>.*}), validated and with defaults applied. */
    FrontEndConfig config();

    /** The shared Netty event loops. */
    EventLoops eventLoops();

    /** Where front-ends register their meters; exported at {@code GET /metrics}. */
    MeterRegistry meterRegistry();

    /** Path-prefix routes on the shared HTTP listener. */
    HttpRoutes httpRoutes();

    /** Counts this front-end's open connections as {@code junction_connections{protocol=<name>}}. */
    ConnectionCounter connections();

    /** The local address listeners bind to ({@code broker.bind-address}). */
    String bindAddress();

    /**
     * The broker's data directory ({@code --data-dir}). A front-end keeps files of its own in a subdirectory named
     * after it; {@code tls/} holds the self-signed development certificate every TLS listener shares.
     */
    Path dataDir();

    /**
     * Where this front-end lists its accepted connections for operators (the console), each with a way to disconnect
     * it. Front-ends that list none leave it alone.
     */
    ClientRegistry clients();

    /** The host clients are told to connect to: in routes, offset message ids and endpoints ({@code broker.host}). */
    String advertisedHost();
}
