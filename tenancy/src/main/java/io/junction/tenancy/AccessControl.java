package io.junction.tenancy;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The one object a front-end asks: authenticate a connection (or verify a signed request), then authorize each
 * operation.
 *
 * <p>It pairs an {@link Authenticator}, a {@link SignatureVerifier} and an {@link Authorizer} so the broker can swap
 * the policy (open, or the user directory's) without front-ends knowing which one runs.
 */
public final class AccessControl {
    private final Authenticator authenticator;
    private final SignatureVerifier verifier;
    private final Authorizer authorizer;
    private final UserDirectory users;
    private final QuotaEnforcer quotas;
    private final SecurityEvents events;
    /** The connections that follow rule changes; null when there are no users (nothing ever changes). */
    private final PolicyWatchers watchers;

    /** @param users the directory behind the policy, for admin commands; null when there is none (auth off) */
    public AccessControl(final Authenticator authenticator, final SignatureVerifier verifier,
                         final Authorizer authorizer, final UserDirectory users, final SecurityEvents events) {
        this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
        this.verifier = Objects.requireNonNull(verifier, "verifier");
        this.authorizer = Objects.requireNonNull(authorizer, "authorizer");
        this.users = users;
        this.events = events == null ? SecurityEvents.NONE : events;
        this.quotas = users == null ? null : new QuotaEnforcer(users::quota, System::nanoTime);
        this.watchers = users == null ? null : new PolicyWatchers(users);
    }

    /** Everyone is anonymous in the default namespace and everything is allowed: the embedded default. */
    public static AccessControl open() {
        return new AccessControl(OpenPolicy.INSTANCE, OpenPolicy.INSTANCE, OpenPolicy.INSTANCE, null, null);
    }

    /** Auth on, with {@code policy} deciding. */
    public static AccessControl secured(final SecurePolicy policy, final UserDirectory users,
                                        final SecurityEvents events) {
        return new AccessControl(policy, policy, policy, Objects.requireNonNull(users, "users"), events);
    }

    /**
     * Whether credentials are checked. Front-ends use it to skip work that only matters with auth on (verifying
     * signatures of clients that sign anyway) and to advertise the right mechanisms (no SASL ANONYMOUS when on).
     */
    public boolean enabled() {
        return users != null;
    }

    /** The users and their policies, for admin commands (RocketMQ's user and ACL codes, the HTTP admin API). */
    public Optional<UserDirectory> users() {
        return Optional.ofNullable(users);
    }

    public CompletableFuture<AuthResult> authenticate(final Credentials credentials) {
        return authenticator.authenticate(credentials);
    }

    public AuthResult verify(final SignedRequest request) {
        return verifier.verify(request);
    }

    public Decision authorize(final Principal principal, final ResourceKind kind, final String name,
                              final Action action) {
        return authorizer.authorize(principal, kind, name, action);
    }

    /**
     * Takes a publish of {@code messages} totalling {@code bytes} from the principal's namespace quota, or refuses it
     * (each front-end answers with its own signal: MQTT 5 0x97, amqp:resource-limit-exceeded, HTTP 429, ...).
     */
    public QuotaEnforcer.Admission admitPublish(final Principal principal, final int messages, final long bytes) {
        if (quotas == null) {
            return QuotaEnforcer.Admission.ADMITTED;
        }
        final QuotaEnforcer.Admission a = quotas.admitPublish(principal.namespace(), messages, bytes);
        if (!a.admitted()) {
            events.quotaExceeded("publish");
        }
        return a;
    }

    /**
     * Counts a connection against the principal's namespace quota; false when the namespace has its maximum open.
     * Every true must be matched by one {@link #connectionClosed}.
     */
    public boolean connectionOpened(final Principal principal) {
        if (quotas == null) {
            return true;
        }
        final boolean ok = quotas.connectionOpened(principal.namespace());
        if (!ok) {
            events.quotaExceeded("connection");
        }
        return ok;
    }

    public void connectionClosed(final Principal principal) {
        if (quotas != null) {
            quotas.connectionClosed(principal.namespace());
        }
    }

    /**
     * The version of the rules every decision is made under: it moves on with each change of users, rules or tenants,
     * after the change is in force (always 0 with auth off). A front-end that remembers a decision remembers the
     * version with it and decides again once the version moved: {@link Grants} does that.
     */
    public long policyVersion() {
        return users == null ? 0 : users.version();
    }

    /**
     * Decisions of {@code principal} for {@code action} on resources of {@code kind}, remembered until the rules
     * change: for front-ends that would otherwise ask the same question for every message of a link.
     */
    public Grants grants(final Principal principal, final ResourceKind kind, final Action action) {
        return new Grants(this, principal, kind, action);
    }

    /**
     * Has {@code watcher} told when the rules of {@code principal} change or it may no longer act (deleted,
     * disabled, moved): for what a principal holds open (a connection, a consumer link, a stream). With auth off
     * nothing changes and nothing is registered. Cancel the registration when the connection ends.
     */
    public PolicyWatch watch(final Principal principal, final PolicyWatcher watcher) {
        return watchers == null ? PolicyWatch.NONE : watchers.add(principal, watcher);
    }

    /** Shorthand for {@code authorize(...).allowed()}. */
    public boolean allows(final Principal principal, final ResourceKind kind, final String name, final Action action) {
        return authorize(principal, kind, name, action).allowed();
    }
}
