package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Store groups added at run time ({@code POST /admin/cluster/groups}), kept in the metadata group's replicated
 * key-value configs (namespace {@value #NAMESPACE}, key = group name, value = its contract addresses
 * {@code host:port,host:port}, prefixed {@code retired;} once it was removed while sealed segments there were still
 * readable). Every proxy mirrors them with the rest of the metadata, so all learn a group within a mirror interval,
 * and a restarted proxy finds them again. Groups listed in {@code cluster.store-groups} are not recorded here.
 */
final class RuntimeGroupBook {
    static final String NAMESPACE = "junction.cluster.groups";
    private static final String RETIRED = "retired;";
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeGroupBook.class);

    private final Messaging.KvConfigs kv;

    /** One recorded group: where it is, and whether it is retired (its sealed segments are read, nothing placed). */
    record Recorded(StoreGroup group, boolean retired) {
        String format() {
            return (retired ? RETIRED : "") + String.join(",", group.contracts());
        }
    }

    RuntimeGroupBook(final Messaging.KvConfigs kv) {
        this.kv = kv;
    }

    /** Every recorded group by name, in name order (as the mirror shows them now). */
    Map<String, Recorded> all() {
        final Map<String, Recorded> groups = new LinkedHashMap<>();
        kv.list(NAMESPACE).forEach((name, text) -> {
            try {
                final boolean retired = text.startsWith(RETIRED);
                final String addresses = retired ? text.substring(RETIRED.length()) : text;
                groups.put(name, new Recorded(new StoreGroup(name, Arrays.stream(addresses.split(","))
                        .map(String::trim).filter(a -> !a.isEmpty()).toList()), retired));
            } catch (IllegalArgumentException e) {
                // Written by proxies only; a garbled record is skipped rather than stopping every other group.
                LOG.warn("Store group record {} is unreadable ({}): skipped", name, e.getMessage());
            }
        });
        return groups;
    }

    CompletableFuture<Void> put(final Recorded recorded) {
        return kv.put(NAMESPACE, recorded.group().name(), recorded.format());
    }

    CompletableFuture<Boolean> delete(final String name) {
        return kv.delete(NAMESPACE, name);
    }
}
