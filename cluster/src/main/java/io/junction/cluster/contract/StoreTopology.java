package io.junction.cluster.contract;

import java.util.Map;
import java.util.Objects;

/**
 * A store group as one of its members sees it: who leads and where each member's contract server is. Any member
 * answers {@link Operation#TOPOLOGY} with it; a proxy follows the leader with it.
 *
 * @param leaderId  the leader's node id, null during an election
 * @param contracts each member's contract server ({@code host:port}) by node id; a member that has not published its
 *                  address yet is missing
 */
public record StoreTopology(String leaderId, Map<String, String> contracts) {
    public StoreTopology {
        contracts = Map.copyOf(Objects.requireNonNull(contracts, "contracts"));
    }

    /** The leader's contract server, null when no leader is known or it has not published its address. */
    public String leaderContract() {
        return leaderId == null ? null : contracts.get(leaderId);
    }
}
