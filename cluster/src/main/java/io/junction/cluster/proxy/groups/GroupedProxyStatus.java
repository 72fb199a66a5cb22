package io.junction.cluster.proxy.groups;

import io.junction.cluster.proxy.ProxyStatus;
import java.util.List;
import java.util.Map;

/**
 * A proxy over several store groups as {@code GET /cluster} shows it.
 *
 * @param role          always {@code PROXY}
 * @param reachesLeader whether every group's leader is known and its metadata recent
 * @param groups        each group's view: the configured ones in order (the first is the metadata group), then those
 *                      added at run time
 * @param placements    every placed topic's placement in its text form ({@link TopicPlacement#format()})
 */
public record GroupedProxyStatus(String role, boolean reachesLeader, List<Group> groups,
                                 Map<String, String> placements) {

    /**
     * One store group: its name and the proxy's view of it.
     *
     * @param added   added at run time ({@code POST /admin/cluster/groups}), not configured
     * @param retired removed while sealed segments there are readable: read, nothing new placed there
     */
    public record Group(String name, ProxyStatus status, boolean added, boolean retired) {
    }
}
