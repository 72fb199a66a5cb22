package io.junction.remoting.security;

import io.junction.core.SystemNames;
import io.junction.tenancy.Action;
import io.junction.tenancy.ResourceKind;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * One thing a request needs to be allowed: an action on a resource (any one of {@code anyOf} suffices), the resource
 * merely lying in the caller's namespace, or the caller being a super user.
 *
 * @param check  how the demand is met
 * @param kind   the resource kind (null for {@link Check#SUPER_USER})
 * @param name   the core name exactly as the client sent it (null for {@link Check#SUPER_USER})
 * @param anyOf  for {@link Check#POLICY}: the actions of which one must be allowed
 * @param hidden the name was looked up, not sent by the client: a refusal must not tell it
 */
record Demand(Check check, ResourceKind kind, String name, Set<Action> anyOf, boolean hidden) {

    /** How a demand is met. */
    enum Check {
        /** The user's policy allows one of the actions (namespace enforced by the policy). */
        POLICY,
        /**
         * The name lies in the caller's namespace; no rule needed. For producer groups, which RocketMQ's ACL does not
         * authorize but which must not reach into another tenant (check-backs of half messages go to a group).
         */
        NAMESPACE,
        /** Only super users. */
        SUPER_USER
    }

    static final Demand SUPER = new Demand(Check.SUPER_USER, null, null, Set.of(), false);


    Demand {
        Objects.requireNonNull(check, "check");
        anyOf = anyOf == null || anyOf.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(anyOf));
    }

    /**
     * {@code action} on a topic. A group's retry or dead-letter topic is the group's: using it needs SUB on the
     * group, whatever is done with it (a consumer subscribes to it, sends failed messages back to it, reads its DLQ).
     */
    static Demand topic(final String name, final Action... anyOf) {
        if (isGroupTopic(name)) {
            return new Demand(Check.POLICY, ResourceKind.GROUP, name, Set.of(Action.SUB), false);
        }
        return new Demand(Check.POLICY, ResourceKind.TOPIC, name, Set.of(anyOf), false);
    }

    static Demand group(final String name, final Action... anyOf) {
        return new Demand(Check.POLICY, ResourceKind.GROUP, name, Set.of(anyOf), false);
    }

    static Demand cluster(final String name, final Action... anyOf) {
        return new Demand(Check.POLICY, ResourceKind.CLUSTER, name, Set.of(anyOf), false);
    }

    /** The group name must lie in the caller's namespace. */
    static Demand groupInNamespace(final String name) {
        return new Demand(Check.NAMESPACE, ResourceKind.GROUP, name, Set.of(), false);
    }

    /** The same demand, its name kept out of refusals. */
    Demand hide() {
        return new Demand(check, kind, name, anyOf, true);
    }

    static boolean isGroupTopic(final String topic) {
        return topic.startsWith(SystemNames.RETRY_PREFIX) || topic.startsWith(SystemNames.DLQ_PREFIX);
    }

    /** What a refusal tells the client was missing. */
    String describe() {
        final String resource = kind == null ? "" : kind.name().toLowerCase(Locale.ROOT)
                + (hidden ? " of that message" : " " + name);
        return switch (check) {
            case SUPER_USER -> "it is for super users only";
            case NAMESPACE -> "the " + resource + " is outside your namespace";
            case POLICY -> "no " + anyOf.stream().map(Enum::name).sorted().reduce((a, b) -> a + "|" + b).orElse("")
                    + " permission on the " + resource;
        };
    }
}
