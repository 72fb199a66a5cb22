package io.junction.tenancy;

/**
 * Decides whether a principal may act on a resource.
 *
 * <p>Synchronous on purpose: it is asked on every send and receive, from an event loop, so an implementation decides
 * from policies held in memory and must not block.
 */
@FunctionalInterface
public interface Authorizer {
    /**
     * @param principal who asks
     * @param kind      the kind of resource
     * @param name      the resource's name as the client spelled it, inside the principal's namespace
     * @param action    what they want to do
     */
    Decision authorize(Principal principal, ResourceKind kind, String name, Action action);
}
