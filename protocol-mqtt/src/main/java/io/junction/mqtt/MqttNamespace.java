package io.junction.mqtt;

import io.junction.tenancy.Namespaces;
import io.junction.tenancy.Principal;
import java.util.function.Predicate;

/**
 * The namespace (tenant) an MQTT session lives in, and how its names become core names.
 *
 * <p>MQTT clients never name a namespace: it is the authenticated user's. Inside namespace {@code acme}, topic
 * {@code sensors/t1} lives in core topic {@code acme%sensors} (the name a RocketMQ client of namespace acme uses for
 * {@code sensors}), the client id {@code dev1} keys session {@code acme%dev1}, retained messages are keyed
 * {@code acme%sensors/t1}, and shared subscription groups are {@code acme%mqtt-share-<group>}. The default namespace
 * keeps today's unwrapped names. With security on a client id may not contain {@code %} (CONNACK identifier
 * rejected), so a session key's namespace is unambiguous when sessions are restored at start.
 *
 * @param name     the namespace
 * @param isTenant whether a namespace is some tenant's; names of the default namespace starting with a tenant's
 *                 {@code ns%} belong to that tenant, not to the default namespace
 */
record MqttNamespace(String name, Predicate<String> isTenant) {

    /** Everyone's namespace when security is off. */
    static final MqttNamespace DEFAULT = new MqttNamespace(Principal.DEFAULT_NAMESPACE, ns -> false);

    boolean isDefault() {
        return Principal.DEFAULT_NAMESPACE.equals(name);
    }

    /** The core name of a name of this namespace (an escaped first level, a group). */
    String core(final String name) {
        return isDefault() ? name : this.name + Namespaces.SEPARATOR + name;
    }

    /** The name inside this namespace of a core name it {@link #owns}. */
    String local(final String core) {
        return isDefault() ? core : core.substring(name.length() + 1);
    }

    /** Whether a core topic (or retained key) belongs to this namespace: the policy's own rule. */
    boolean owns(final String core) {
        return Namespaces.localName(name, core, isTenant) != null;
    }

    /** The namespace a stored session key belongs to (see the class comment). */
    static MqttNamespace ofSessionKey(final String key, final boolean securityOn, final Predicate<String> isTenant) {
        final int sep = key.indexOf(Namespaces.SEPARATOR);
        if (!securityOn || sep <= 0 || !Namespaces.valid(key.substring(0, sep))) {
            return securityOn ? new MqttNamespace(Principal.DEFAULT_NAMESPACE, isTenant) : DEFAULT;
        }
        return new MqttNamespace(key.substring(0, sep), isTenant);
    }
}
