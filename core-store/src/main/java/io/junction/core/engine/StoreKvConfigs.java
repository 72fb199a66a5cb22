package io.junction.core.engine;

import io.junction.core.Messaging;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.meta.DurableTable;
import io.junction.core.meta.KvConfig;
import io.junction.core.threads.StoreTasks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/** Key-value configuration items, written through to {@code kvconfig.dat} on the admin thread. */
final class StoreKvConfigs implements Messaging.KvConfigs {
    private final DurableTable<KvConfig> table;
    private final Executor adminPool;

    StoreKvConfigs(final DurableTable<KvConfig> table, final Executor adminPool) {
        this.table = table;
        this.adminPool = adminPool;
    }

    @Override
    public CompletableFuture<Void> put(final String namespace, final String key, final String value) {
        final StoreException invalid = invalid(namespace, key, value);
        return invalid != null ? CompletableFuture.failedFuture(invalid)
                : StoreTasks.run(adminPool, () -> save(namespace, key, value));
    }

    /** Atomic: every change of the items runs on the one admin thread, so nothing lands between the read and the put. */
    @Override
    public CompletableFuture<Boolean> replace(final String namespace, final String key, final String expected,
                                             final String value) {
        final StoreException invalid = invalid(namespace, key, value);
        return invalid != null ? CompletableFuture.failedFuture(invalid) : StoreTasks.supply(adminPool, () -> {
            final String now = table.get(KvConfig.id(namespace, key)).map(KvConfig::value).orElse(null);
            if (!Objects.equals(now, expected)) {
                return false;
            }
            save(namespace, key, value);
            return true;
        });
    }

    /** Why an item may not be stored, or null when it may. */
    private static StoreException invalid(final String namespace, final String key, final String value) {
        try {
            check("namespace", namespace, false);
            check("key", key, false);
            check("value", value, true);
            return null;
        } catch (StoreException e) {
            return e;
        }
    }

    /** Stores an item (on the admin thread). */
    private void save(final String namespace, final String key, final String value) {
        try {
            table.put(new KvConfig(namespace, key, value));
        } catch (IOException e) {
            throw new StoreException(StoreError.IO_ERROR, "cannot save config item " + namespace + "/" + key
                    + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<String> get(final String namespace, final String key) {
        return table.get(KvConfig.id(namespace, key)).map(KvConfig::value);
    }

    @Override
    public CompletableFuture<Boolean> delete(final String namespace, final String key) {
        return StoreTasks.supply(adminPool, () -> {
            try {
                return table.remove(KvConfig.id(namespace, key));
            } catch (IOException e) {
                throw new StoreException(StoreError.IO_ERROR, "cannot delete config item " + namespace + "/" + key
                        + ": " + e.getMessage(), e);
            }
        });
    }

    @Override
    public SortedMap<String, String> list(final String namespace) {
        final SortedMap<String, String> items = new TreeMap<>();
        for (KvConfig c : table.all()) {
            if (c.namespace().equals(namespace)) {
                items.put(c.key(), c.value());
            }
        }
        return items;
    }

    private static void check(final String what, final String text, final boolean mayBeEmpty) {
        if (text == null || text.isEmpty() && !mayBeEmpty) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "the config item's " + what + " is missing");
        }
        if (text.indexOf('\u0000') >= 0 || text.getBytes(StandardCharsets.UTF_8).length > KvConfig.MAX_LENGTH) {
            throw new StoreException(StoreError.ILLEGAL_ARGUMENT, "the config item's " + what
                    + " holds a NUL or is longer than " + KvConfig.MAX_LENGTH + " bytes");
        }
    }
}
