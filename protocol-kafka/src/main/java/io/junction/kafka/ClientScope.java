package io.junction.kafka;

import io.junction.spi.CoreNames;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Action;
import io.junction.tenancy.Grants;
import io.junction.tenancy.Namespaces;
import io.junction.tenancy.Principal;
import io.junction.tenancy.ResourceKind;

/**
 * What one authenticated Kafka connection may see and do: its principal's namespace turns the Kafka names it uses into
 * core names ({@code orders} of tenant {@code acme} is core topic {@code acme%orders}, as for a RocketMQ client of
 * namespace acme; the default namespace's names stay as they are), and its ACL decides each request (PUB to produce,
 * SUB to fetch, list offsets and use a group, CREATE/UPDATE/DELETE/GET on a topic to administer it, GET on the cluster
 * to describe it). Decisions are remembered per name until the rules change ({@link Grants}).
 *
 * <p>Confined to the connection's event loop (Grants are not thread-safe).
 */
final class ClientScope {
    private final AccessControl access;
    private final Principal principal;
    private final Grants publish;
    private final Grants subscribe;
    private final Grants groups;

    ClientScope(final AccessControl access, final Principal principal) {
        this.access = access;
        this.principal = principal;
        this.publish = access.grants(principal, ResourceKind.TOPIC, Action.PUB);
        this.subscribe = access.grants(principal, ResourceKind.TOPIC, Action.SUB);
        this.groups = access.grants(principal, ResourceKind.GROUP, Action.SUB);
    }

    /** The authenticated connection ended: its namespace's connection quota gets the place back. */
    void closed() {
        access.connectionClosed(principal);
    }

    Principal principal() {
        return principal;
    }

    /** The core topic a Kafka topic name of this client stands for. */
    String topic(final String kafkaName) {
        return principal.qualify(kafkaName);
    }

    /** The Kafka name of a core topic for this client, or null when the topic lies outside its namespace. */
    String kafkaName(final String coreTopic) {
        final String local = Namespaces.localName(principal.namespace(), coreTopic,
                ns -> access.users().map(u -> u.isTenant(ns)).orElse(false));
        return local != null && KafkaTopics.isVisible(local) ? local : null;
    }

    /**
     * The core group of a Kafka group id: the id escaped as every protocol escapes names ({@link CoreNames#escape}),
     * inside this client's namespace.
     */
    String group(final String groupId) {
        return principal.qualify(CoreNames.escape(groupId));
    }

    /** The Kafka id of a core group of this client's namespace ({@link #group} reversed), or null outside it. */
    String groupId(final String coreGroup) {
        final String local = Namespaces.localName(principal.namespace(), coreGroup,
                ns -> access.users().map(u -> u.isTenant(ns)).orElse(false));
        return local == null ? null : CoreNames.unescape(local);
    }

    /** Whether a core group belongs to this client's namespace. */
    boolean ownsGroup(final String coreGroup) {
        return Namespaces.localName(principal.namespace(), coreGroup,
                ns -> access.users().map(u -> u.isTenant(ns)).orElse(false)) != null;
    }

    boolean mayPublish(final String coreTopic) {
        return publish.allows(coreTopic);
    }

    boolean maySubscribe(final String coreTopic) {
        return subscribe.allows(coreTopic);
    }

    /** Whether the client may read or write the topic: what describing it in Metadata takes. */
    boolean mayDescribe(final String coreTopic) {
        return subscribe.allows(coreTopic) || publish.allows(coreTopic)
                || access.allows(principal, ResourceKind.TOPIC, coreTopic, Action.GET);
    }

    boolean mayUseGroup(final String coreGroup) {
        return groups.allows(coreGroup);
    }

    /** Administration of a topic: CREATE, UPDATE, DELETE or GET. */
    boolean mayAdminister(final String coreTopic, final Action action) {
        return access.allows(principal, ResourceKind.TOPIC, coreTopic, action);
    }

    /** Cluster-wide reads (DescribeCluster, broker configs). */
    boolean mayDescribeCluster() {
        return access.allows(principal, ResourceKind.CLUSTER, MetadataApi.CLUSTER_ID, Action.GET);
    }
}
