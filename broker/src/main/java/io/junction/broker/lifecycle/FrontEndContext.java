package io.junction.broker.lifecycle;

import io.junction.core.Messaging;
import io.junction.spi.BrokerContext;
import io.junction.spi.EventLoops;
import io.junction.spi.clients.ClientRegistry;
import io.junction.spi.config.FrontEndConfig;
import io.junction.spi.http.HttpRoutes;
import io.junction.spi.metrics.ConnectionCounter;
import io.junction.tenancy.AccessControl;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;

/** The context one front-end is started with: shared components plus its own configuration and counter. */
record FrontEndContext(
        Messaging messaging,
        AccessControl accessControl,
        FrontEndConfig config,
        EventLoops eventLoops,
        MeterRegistry meterRegistry,
        HttpRoutes httpRoutes,
        ConnectionCounter connections,
        ClientRegistry clients,
        String bindAddress,
        String advertisedHost,
        Path dataDir) implements BrokerContext {
}
