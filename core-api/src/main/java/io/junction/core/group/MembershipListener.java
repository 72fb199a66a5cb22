package io.junction.core.group;

/** Hears that a consumer group's live clients changed (a client came, left or expired), to tell the rest to rebalance. */
@FunctionalInterface
public interface MembershipListener {
    void membershipChanged(String group);
}
