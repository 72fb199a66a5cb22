package io.junction.core.engine;

import io.junction.core.Messaging;
import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.meta.ConsumerOffsets;
import io.junction.core.meta.DurableTable;
import io.junction.core.meta.GroupConfig;
import io.junction.core.meta.TopicNames;
import io.junction.core.pop.PopService;
import io.junction.core.threads.StoreTasks;
import java.io.IOException;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Consumer group administration; metadata writes run on the admin thread, never the caller's. */
final class StoreGroups implements Messaging.GroupAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(StoreGroups.class);
    private final DurableTable<GroupConfig> table;
    private final ConsumerOffsets offsets;
    private final Supplier<PopService> pops;
    private final Executor adminPool;
    private final boolean autoCreate;

    /**
     * @param pops       POP, which is built after this (it asks the groups)
     * @param autoCreate whether {@link #getOrCreate} creates unknown groups
     */
    StoreGroups(final DurableTable<GroupConfig> table, final ConsumerOffsets offsets, final Supplier<PopService> pops,
                final Executor adminPool, final boolean autoCreate) {
        this.autoCreate = autoCreate;
        this.table = table;
        this.offsets = offsets;
        this.pops = pops;
        this.adminPool = adminPool;
    }

    @Override
    public CompletableFuture<GroupConfig> createOrUpdate(final GroupConfig group) {
        return StoreTasks.supply(adminPool, () -> {
            TopicNames.check("group", group.name());
            save(group);
            return group;
        });
    }

    private void save(final GroupConfig group) {
        try {
            table.put(group);
        } catch (IOException e) {
            throw new StoreException(StoreError.IO_ERROR, "cannot save group " + group.name() + ": "
                    + e.getMessage(), e);
        }
    }

    @Override
    public CompletableFuture<Boolean> delete(final String group) {
        return StoreTasks.supply(adminPool, () -> {
            try {
                offsets.remove(group, null);
                return table.remove(group);
            } catch (IOException e) {
                throw new StoreException(StoreError.IO_ERROR, "cannot delete group " + group + ": " + e.getMessage(),
                        e);
            }
        });
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
    public Optional<GroupConfig> getOrCreate(final String group) {
        final Optional<GroupConfig> existing = table.get(group);
        if (existing.isPresent() || !autoCreate || !TopicNames.isValid(group)) {
            return existing;
        }
        final GroupConfig created = GroupConfig.of(group);
        // Saved in the background, the defaults applying meanwhile; only if still absent then, so a configuration
        // written just before (a FIFO group a client asked for) is never overwritten with the defaults.
        StoreTasks.run(adminPool, () -> {
            if (table.get(group).isEmpty()) {
                save(created);
            }
        }).whenComplete((v, failure) -> {
            if (failure != null) {
                LOG.warn("Group {} created on first use could not be saved; its defaults apply until it is", group,
                        failure);
            }
        });
        return Optional.of(created);
    }

    @Override
    public Collection<GroupConfig> list() {
        return table.all();
    }
}
