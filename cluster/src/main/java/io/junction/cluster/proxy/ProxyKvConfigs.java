package io.junction.cluster.proxy;

import io.junction.core.Messaging;
import io.junction.core.meta.KvConfig;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/** Key-value configs on a proxy: changes go to the leader (which replicates them), reads are the mirror's. */
final class ProxyKvConfigs implements Messaging.KvConfigs {
    private final ProxyMessaging proxy;
    private final MetadataMirror mirror;

    ProxyKvConfigs(final ProxyMessaging proxy, final MetadataMirror mirror) {
        this.proxy = proxy;
        this.mirror = mirror;
    }

    @Override
    public CompletableFuture<Void> put(final String namespace, final String key, final String value) {
        return proxy.forward(m -> m.admin().putKv(namespace, key, value)).thenApply(v -> {
            mirror.kv.putLocal(KvConfig.id(namespace, key), new KvConfig(namespace, key, value));
            return null;
        });
    }

    @Override
    public Optional<String> get(final String namespace, final String key) {
        return mirror.kv.get(KvConfig.id(namespace, key)).map(KvConfig::value);
    }

    /** Checked by the leader; what it wrote goes into the mirror at once (read your own write). */
    @Override
    public CompletableFuture<Boolean> replace(final String namespace, final String key, final String expected,
                                             final String value) {
        return proxy.forward(m -> m.admin().replaceKv(namespace, key, expected, value)).thenApply(written -> {
            if (written) {
                mirror.kv.putLocal(KvConfig.id(namespace, key), new KvConfig(namespace, key, value));
            }
            return written;
        });
    }

    @Override
    public CompletableFuture<Boolean> delete(final String namespace, final String key) {
        return proxy.forward(m -> m.admin().deleteKv(namespace, key)).thenApply(deleted -> {
            mirror.kv.removeLocal(KvConfig.id(namespace, key));
            return deleted;
        });
    }

    @Override
    public SortedMap<String, String> list(final String namespace) {
        return new TreeMap<>(mirror.kvList(namespace));
    }
}
