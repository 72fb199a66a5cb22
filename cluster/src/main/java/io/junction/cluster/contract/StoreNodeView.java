package io.junction.cluster.contract;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * What a {@link ContractServer} tells about its node beyond the contract: the group's topology and the store's
 * metadata tables whole (for {@link Operation#MIRROR}).
 */
public interface StoreNodeView {
    StoreTopology topology();

    /** The metadata tables and consumer offsets as the store exports them (name to bytes). */
    Map<String, byte[]> tables() throws IOException;

    /** The consumer groups with live clients (heartbeats need no group in the table). */
    List<String> consumerGroups();
}
