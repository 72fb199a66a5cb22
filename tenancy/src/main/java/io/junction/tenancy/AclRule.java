package io.junction.tenancy;

import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * One entry of a user's policy: a resource pattern, the actions it covers and whether it allows or denies them.
 *
 * <p>Written like RocketMQ ACL 2.0's resources: {@code Topic:orders} (literal), {@code Topic:orders-*} (prefix),
 * {@code Group:*} (every group), {@code Cluster:*}, or {@code *} (any resource of any kind). Names are the names
 * inside the user's namespace, never the wrapped core names.
 *
 * @param kind     the kind of resource, or null for any kind
 * @param pattern  {@code *}, a literal name, or a prefix ending in {@code *}
 * @param actions  the actions covered
 * @param decision allow or deny
 */
public record AclRule(ResourceKind kind, String pattern, Set<Action> actions, Decision decision) {

    public AclRule {
        Objects.requireNonNull(pattern, "pattern");
        Objects.requireNonNull(decision, "decision");
        if (pattern.isEmpty() || pattern.indexOf('*') >= 0 && pattern.indexOf('*') != pattern.length() - 1) {
            throw new IllegalArgumentException("a pattern is *, a name, or a prefix ending in *: " + pattern);
        }
        if (actions == null || actions.isEmpty()) {
            throw new IllegalArgumentException("a rule names at least one action");
        }
        actions = Set.copyOf(EnumSet.copyOf(actions));
    }

    /**
     * Parses {@code resource} ({@code Kind:pattern} or {@code *}), {@code actions} (names of {@link Action}, or
     * {@code ALL}) and {@code decision} ({@code ALLOW}/{@code DENY}, any case).
     */
    public static AclRule parse(final String resource, final Collection<String> actions, final String decision) {
        Objects.requireNonNull(resource, "resource");
        final ResourceKind kind;
        final String pattern;
        if ("*".equals(resource)) {
            kind = null;
            pattern = "*";
        } else {
            final int colon = resource.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("a resource is Kind:pattern or *: " + resource);
            }
            kind = kindOf(resource.substring(0, colon));
            pattern = resource.substring(colon + 1);
        }
        final EnumSet<Action> set = EnumSet.noneOf(Action.class);
        for (final String a : actions == null ? List.<String>of() : actions) {
            final String upper = a.trim().toUpperCase(Locale.ROOT);
            if ("ALL".equals(upper) || "ANY".equals(upper)) {
                set.addAll(EnumSet.allOf(Action.class));
            } else {
                try {
                    set.add(Action.valueOf(upper));
                } catch (final IllegalArgumentException e) {
                    throw new IllegalArgumentException("unknown action " + a, e);
                }
            }
        }
        final Decision d;
        try {
            d = Decision.valueOf(Objects.requireNonNull(decision, "decision").trim().toUpperCase(Locale.ROOT));
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("a decision is ALLOW or DENY: " + decision, e);
        }
        return new AclRule(kind, pattern, set, d);
    }

    private static ResourceKind kindOf(final String text) {
        for (final ResourceKind k : ResourceKind.values()) {
            if (k.name().equalsIgnoreCase(text)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown resource kind " + text + " (Topic, Group or Cluster)");
    }

    /** The resource in its written form. */
    public String resource() {
        if (kind == null) {
            return "*";
        }
        final String k = kind.name();
        return k.charAt(0) + k.substring(1).toLowerCase(Locale.ROOT) + ':' + pattern;
    }

    /** Whether this rule speaks of {@code action} on the resource {@code name} of {@code kind}. */
    public boolean covers(final ResourceKind kind, final String name, final Action action) {
        if (this.kind != null && this.kind != kind || !actions.contains(action)) {
            return false;
        }
        if ("*".equals(pattern)) {
            return true;
        }
        final int last = pattern.length() - 1;
        return pattern.charAt(last) == '*' ? name.length() >= last && name.regionMatches(0, pattern, 0, last)
                : pattern.equals(name); // regionMatches: asked on every publish, so no substring per call
    }
}
