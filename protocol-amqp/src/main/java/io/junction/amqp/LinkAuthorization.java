package io.junction.amqp;

import io.junction.tenancy.AccessControl;
import io.junction.tenancy.Action;
import io.junction.tenancy.Grants;
import io.junction.tenancy.PolicyWatch;
import io.junction.tenancy.PolicyWatcher;
import io.junction.tenancy.ResourceKind;

/**
 * The rules in force for one connection's links, followed as they change. Every transfer on a producer link (named
 * or the anonymous relay, in a transaction or not) is checked for PUB on its topic; allowed topics are remembered
 * until the rules change, so a send costs a version read. A change of the rules re-checks each consumer link for SUB
 * on its topic and detaches those no longer allowed with {@code amqp:unauthorized-access}; a user deleted, disabled
 * or moved to another namespace has the whole connection closed with it.
 *
 * <p>Runs on the connection's event loop; the watcher's callbacks come from the administrator's thread and only hand
 * over to it.
 */
final class LinkAuthorization implements PolicyWatcher {
    private final Endpoints endpoints;
    private final AccessControl access;
    private final Grants publishing;
    private final PolicyWatch watch;

    LinkAuthorization(final Endpoints endpoints) {
        this.endpoints = endpoints;
        this.access = endpoints.broker().accessControl();
        this.publishing = access.grants(endpoints.connection().principal(), ResourceKind.TOPIC, Action.PUB);
        this.watch = access.watch(endpoints.connection().principal(), this);
    }

    /** Whether the connection's user may send to the core topic now. */
    boolean mayPublish(final String core) {
        return publishing.allows(core);
    }

    /** Whether the connection's user may receive from the core topic now. */
    boolean mayReceive(final String core) {
        return access.allows(endpoints.connection().principal(), ResourceKind.TOPIC, core, Action.SUB);
    }

    /** The connection ended: no more changes to follow. */
    void stop() {
        watch.cancel();
    }

    @Override
    public void rulesChanged() {
        endpoints.connection().executor().execute(() -> {
            if (!endpoints.lost()) {
                endpoints.endConsumersNotAllowed(this::mayReceive);
            }
        });
    }

    @Override
    public void revoked() {
        endpoints.connection().executor().execute(() -> endpoints.connection().fail(AmqpErrors.of(
                AmqpErrors.UNAUTHORIZED, "the user was deleted, disabled or moved to another namespace")));
    }
}
