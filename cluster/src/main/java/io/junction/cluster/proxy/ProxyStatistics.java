package io.junction.cluster.proxy;

import io.junction.core.Messaging;
import io.junction.core.RuntimeFigures;
import java.util.concurrent.CompletableFuture;

/**
 * Figures on a proxy: the leader's runtime figures. Consume rates are counted where messages are handed out, on the
 * leader, and the contract reads them synchronously, so a proxy answers 0 (admin tools reading them ask a store node).
 */
final class ProxyStatistics implements Messaging.Statistics {
    private final ProxyMessaging proxy;

    ProxyStatistics(final ProxyMessaging proxy) {
        this.proxy = proxy;
    }

    @Override
    public CompletableFuture<RuntimeFigures> runtime() {
        return proxy.forward(m -> m.admin().runtime());
    }

    @Override
    public double consumeTps(final String group, final String topic) {
        return 0;
    }
}
