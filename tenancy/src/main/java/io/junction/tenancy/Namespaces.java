package io.junction.tenancy;

import io.junction.core.SystemNames;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * How a tenant's resource names become core names, and the check that keeps tenants apart.
 *
 * <p>A resource {@code orders} of namespace {@code acme} is the core topic (or group) {@code acme%orders}, the
 * convention RocketMQ's SDKs use when a client sets a namespace; retry and dead-letter topics of a group wrap it as
 * {@code %RETRY%acme%group} and {@code %DLQ%acme%group}. The default namespace's names are not wrapped. Because
 * {@code %} is legal in a client-supplied name, a wrapped name is never trusted as proof of a namespace: the namespace
 * comes from the authenticated principal, and {@link #localName} refuses any name outside it, including default-namespace
 * names that start like a tenant's.
 */
public final class Namespaces {

    /** Separates the namespace from the name in a core name. */
    public static final char SEPARATOR = '%';

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private Namespaces() {
    }

    /**
     * Whether a topic or group is one the store or the RocketMQ SDKs keep for themselves: transaction half and op
     * topics, the POP revive log, the timer wheel, delay levels, the auto-create template ({@code TBW102}), the MQTT
     * front-end's state topics, system consumer groups. They carry no namespace, so to a rule of the default namespace
     * such as {@code Topic:*} they would look like ordinary names: reading the half topic would show every tenant's
     * unfinished transactions. Only super users name them.
     */
    public static boolean isInternal(final ResourceKind kind, final String name) {
        if (kind == ResourceKind.CLUSTER || name == null) {
            return false;
        }
        if (kind == ResourceKind.GROUP) {
            return startsWithIgnoreCase(name, "CID_RMQ_SYS_") || startsWithIgnoreCase(name, "CID_SYS_RMQ_");
        }
        return startsWithIgnoreCase(name, "RMQ_SYS_") || startsWithIgnoreCase(name, "SCHEDULE_TOPIC_")
                || "TBW102".equals(name) || name.startsWith("%MQTT%");
    }

    private static boolean startsWithIgnoreCase(final String name, final String prefix) {
        return name.regionMatches(true, 0, prefix, 0, prefix.length());
    }

    /** Whether {@code namespace} may name a tenant: letters, digits, {@code _} and {@code -}, at most 64. */
    public static boolean valid(final String namespace) {
        return namespace != null && VALID.matcher(namespace).matches();
    }

    /** {@code name} inside {@code namespace}: unchanged in the default namespace, {@code namespace%name} otherwise. */
    public static String qualify(final String namespace, final String name) {
        if (Principal.DEFAULT_NAMESPACE.equals(namespace) || name.startsWith(namespace + SEPARATOR)) {
            return name;
        }
        return namespace + SEPARATOR + name;
    }

    /** Strips {@code namespace%} from {@code coreName} when it carries it; otherwise returns it unchanged. */
    public static String unqualify(final String namespace, final String coreName) {
        if (Principal.DEFAULT_NAMESPACE.equals(namespace)) {
            return coreName;
        }
        final String prefix = namespace + SEPARATOR;
        return coreName.startsWith(prefix) ? coreName.substring(prefix.length()) : coreName;
    }

    /**
     * The name a policy of {@code namespace} speaks of when a client names {@code coreName}, or {@code null} when
     * {@code coreName} lies outside that namespace. Retry and dead-letter names resolve to their group's name.
     *
     * <p>A tenant's names are those starting with {@code namespace%}; what follows may contain {@code %} (escaped MQTT
     * levels do), as the first segment alone decides the namespace. A default-namespace name is one whose first
     * {@code %}-segment is not a tenant's namespace ({@code isTenant}), so {@code acme%orders} is never reachable
     * from the default namespace while escaped names such as {@code %24SYS} are.
     */
    public static String localName(final String namespace, final String coreName,
                                   final Predicate<String> isTenant) {
        String name = coreName;
        if (name.startsWith(SystemNames.RETRY_PREFIX)) {
            name = name.substring(SystemNames.RETRY_PREFIX.length());
        } else if (name.startsWith(SystemNames.DLQ_PREFIX)) {
            name = name.substring(SystemNames.DLQ_PREFIX.length());
        }
        if (Principal.DEFAULT_NAMESPACE.equals(namespace)) {
            final int sep = name.indexOf(SEPARATOR);
            return name.isEmpty() || sep > 0 && isTenant.test(name.substring(0, sep)) ? null : name;
        }
        final String prefix = namespace + SEPARATOR;
        if (!name.startsWith(prefix) || name.length() == prefix.length()) {
            return null;
        }
        return name.substring(prefix.length());
    }
}
