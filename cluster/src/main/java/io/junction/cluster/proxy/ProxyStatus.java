package io.junction.cluster.proxy;

import java.util.List;

/**
 * A proxy's view of its store group, as {@code GET /cluster} shows it.
 *
 * @param role          always {@code PROXY}
 * @param leader        the leader's node id, null when none is known
 * @param leaderContract the leader's contract server, null when none is known
 * @param reachesLeader whether a leader is known and its metadata arrived recently (the proxy can serve)
 * @param mirrorAgeMs   milliseconds since the last metadata snapshot, -1 before the first
 * @param stores        the store nodes' contract servers the proxy knows (seeds and learnt ones)
 */
public record ProxyStatus(String role, String leader, String leaderContract, boolean reachesLeader, long mirrorAgeMs,
                          List<Store> stores) {

    /**
     * One store node.
     *
     * @param contract      its contract server
     * @param lastAnswerMs  milliseconds since it last answered a topology question, -1 never
     */
    public record Store(String contract, long lastAnswerMs) {
    }
}
