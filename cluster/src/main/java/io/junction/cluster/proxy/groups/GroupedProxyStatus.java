package io.junction.cluster.proxy.groups;

import io.junction.cluster.proxy.ProxyStatus;
import java.util.List;
import java.util.Map;

/**
 * A proxy over several store groups as {@code GET /cluster} shows it.
 *
 * @param role          always {@code PROXY}
 * @param reachesLeader whether every group's leader is known and its metadata recent
 * @param groups        each group's view, in configured order (the first is the metadata group)
 * @param placements    every placed topic's placement in its text form ({@link TopicPlacement#format()})
 */
public record GroupedProxyStatus(String role, boolean reachesLeader, List<Group> groups,
                                 Map<String, String> placements) {

    /** One store group: its name and the proxy's view of it. */
    public record Group(String name, ProxyStatus status) {
    }
}
