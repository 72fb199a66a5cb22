package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Store groups added at run time ({@code POST /admin/cluster/groups}), kept in the metadata group's replicated
 * key-value configs (namespace {@value #NAMESPACE}, key = group name, value = {@code number;host:port,host:port}: the
 * group's number and its contract addresses, the addresses prefixed {@code retired;} once it was removed while sealed
 * segments there were still readable). Every proxy mirrors them with the rest of the metadata, so all learn a group
 * within a mirror interval, and a restarted proxy finds them again. Groups listed in {@code cluster.store-groups} are
 * not recorded here.
 *
 * <p>The number tells the group's commit-log offsets and retry queues apart from other groups' where a proxy hands
 * them out ({@link GroupNumbering}), so every proxy must give a group the same one, and no two live groups may share
 * one. A group is given the lowest free number from {@value #FIRST_NUMBER} (below it: the configured groups, by their
 * place in {@code cluster.store-groups}) to {@value GroupNumbering#MAX_TAGGED_ORDINAL}, claimed under namespace
 * {@value #NUMBERS} with a compare-and-set at the metadata group's leader (two proxies adding groups at once never
 * take the same one) and given back when the group is forgotten.
 */
final class RuntimeGroupBook {
    static final String NAMESPACE = "junction.cluster.groups";
    static final String NUMBERS = "junction.cluster.group-numbers";
    static final int FIRST_NUMBER = 64;
    private static final String RETIRED = "retired;";
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeGroupBook.class);

    private final Messaging.KvConfigs kv;

    /** One recorded group: where it is, its number, and whether it is retired (its sealed segments are read). */
    record Recorded(StoreGroup group, int number, boolean retired) {
        String format() {
            return number + ";" + (retired ? RETIRED : "") + String.join(",", group.contracts());
        }

        Recorded retire() {
            return new Recorded(group, number, true);
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
                final int cut = text.indexOf(';');
                final int number = cut < 0 ? -1 : Integer.parseInt(text.substring(0, cut));
                if (number < FIRST_NUMBER || number > GroupNumbering.MAX_TAGGED_ORDINAL) {
                    throw new IllegalArgumentException("no group number in " + text);
                }
                String addresses = text.substring(cut + 1);
                final boolean retired = addresses.startsWith(RETIRED);
                addresses = retired ? addresses.substring(RETIRED.length()) : addresses;
                groups.put(name, new Recorded(new StoreGroup(name, Arrays.stream(addresses.split(","))
                        .map(String::trim).filter(a -> !a.isEmpty()).toList()), number, retired));
            } catch (IllegalArgumentException e) {
                // Written by proxies only; a garbled record is skipped rather than stopping every other group.
                LOG.warn("Store group record {} is unreadable ({}): skipped", name, e.getMessage());
            }
        });
        return groups;
    }

    /**
     * Claims the lowest free number for {@code name} (as the mirror shows them: bring it up to the leader's first);
     * a number another proxy claimed meanwhile is passed over. Fails when all are taken.
     */
    int claimNumber(final String name) {
        final Set<String> taken = new HashSet<>(kv.list(NUMBERS).keySet());
        for (int n = FIRST_NUMBER; n <= GroupNumbering.MAX_TAGGED_ORDINAL; n++) {
            final String key = Integer.toString(n);
            if (!taken.contains(key) && kv.replace(NUMBERS, key, null, name).join()) {
                return n;
            }
        }
        throw new GroupChangeRefused(GroupChangeRefused.Reason.NUMBERS_TAKEN, "every store group number from "
                + FIRST_NUMBER + " to " + GroupNumbering.MAX_TAGGED_ORDINAL + " is taken: remove a group first");
    }

    /** Gives a number back (its group is forgotten, or its record was never written). */
    CompletableFuture<Boolean> releaseNumber(final int number) {
        return kv.delete(NUMBERS, Integer.toString(number));
    }

    /** Records a new group; false when a group of its name is recorded already (nothing written). */
    CompletableFuture<Boolean> create(final Recorded recorded) {
        return kv.replace(NAMESPACE, recorded.group().name(), null, recorded.format());
    }

    CompletableFuture<Void> put(final Recorded recorded) {
        return kv.put(NAMESPACE, recorded.group().name(), recorded.format());
    }

    CompletableFuture<Boolean> delete(final String name) {
        return kv.delete(NAMESPACE, name);
    }
}
