package io.junction.cluster.proxy.groups;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One store group as a proxy reaches it: its name and its store nodes' contract servers.
 *
 * @param name      {@code [a-z0-9-]+}: it prefixes receipts and names the group in queue placements
 * @param contracts the store nodes' contract servers as {@code host:port}; one reachable suffices
 */
public record StoreGroup(String name, List<String> contracts) {
    /** The name {@code cluster.store-contracts} (one group) gets. */
    public static final String DEFAULT_NAME = "g1";
    private static final Pattern NAME = Pattern.compile("[a-z0-9-]+");

    public StoreGroup {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("store group name '" + name + "' is not [a-z0-9-]+");
        }
        if (contracts.isEmpty()) {
            throw new IllegalArgumentException("store group " + name + " lists no contract address");
        }
        for (String address : contracts) {
            checkAddress(name, address);
        }
        contracts = List.copyOf(contracts);
    }

    private static void checkAddress(final String group, final String address) {
        final int colon = address.lastIndexOf(':');
        int port = -1;
        if (colon > 0) {
            try {
                port = Integer.parseInt(address.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("store group " + group + ": '" + address + "' is not host:port");
        }
    }

    /** The one group {@code cluster.store-contracts} names. */
    public static StoreGroup single(final List<String> contracts) {
        return new StoreGroup(DEFAULT_NAME, contracts);
    }

    /**
     * Parses {@code g1=host:port,host:port;g2=host:port}: groups in order (the first is the metadata group), each
     * with at least one address, names unique; addresses are checked by the caller.
     *
     * @throws IllegalArgumentException with a one-line reason
     */
    public static List<StoreGroup> parseList(final String text) {
        final List<StoreGroup> groups = new ArrayList<>();
        final Set<String> names = new HashSet<>();
        for (String part : text.split(";")) {
            final String entry = part.trim();
            if (entry.isEmpty()) {
                continue;
            }
            final int eq = entry.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("'" + entry + "' is not name=host:port,host:port");
            }
            final String name = entry.substring(0, eq).trim();
            final List<String> contracts = new ArrayList<>();
            for (String address : entry.substring(eq + 1).split(",")) {
                if (!address.isBlank()) {
                    contracts.add(address.trim());
                }
            }
            final StoreGroup group = new StoreGroup(name, contracts);
            if (!names.add(name)) {
                throw new IllegalArgumentException("store group " + name + " is listed twice");
            }
            groups.add(group);
        }
        return List.copyOf(groups);
    }
}
