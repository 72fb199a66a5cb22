package io.junction.core.engine;

import io.junction.core.Messaging;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.meta.ConsumerOffsets;
import io.junction.core.meta.DurableTable;
import io.junction.core.meta.GroupConfig;
import io.junction.core.pop.PopService;
import java.io.IOException;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/** Consumer group administration; metadata writes run on the admin thread, never the caller's. */
final class StoreGroups implements Messaging.GroupAdmin {
    private final DurableTable<GroupConfig> table;
    private final ConsumerOffsets offsets;
    private final Supplier<PopService> pops;
    private final Executor adminPool;

    /** @param pops POP, which is built after this (it asks the groups) */
    StoreGroups(final DurableTable<GroupConfig> table, final ConsumerOffsets offsets, final Supplier<PopService> pops,
                final Executor adminPool) {
        this.table = table;
        this.offsets = offsets;
        this.pops = pops;
        this.adminPool = adminPool;
    }

    @Override
    public CompletableFuture<GroupConfig> createOrUpdate(final GroupConfig group) {
        return CompletableFuture.supplyAsync(() -> {
            TopicNames.check("group", group.name());
            try {
                table.put(group);
                return group;
            } catch (IOException e) {
                throw new StoreException(StoreError.IO_ERROR, "cannot save group " + group.name() + ": "
                        + e.getMessage(), e);
            }
        }, adminPool);
    }

    @Override
    public CompletableFuture<Boolean> delete(final String group) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                offsets.remove(group, null);
                return table.remove(group);
            } catch (IOException e) {
                throw new StoreException(StoreError.IO_ERROR, "cannot delete group " + group + ": " + e.getMessage(),
                        e);
            }
        }, adminPool);
    }

    @Override
    public CompletableFuture<Integer> redriveDeadLetters(final String group, final int max) {
        return pops.get().redriveDeadLetters(group, max);
    }

    @Override
    public Optional<GroupConfig> get(final String group) {
        return table.get(group);
    }

    @Override
    public Collection<GroupConfig> list() {
        return table.all();
    }
}
