package io.junction.tenancy;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Auth on: users from the {@link UserDirectory}, namespaces enforced, default deny.
 *
 * <p>Authorization: a super user may do anything; anyone else may only name resources of their own namespace
 * ({@link Namespaces#localName}), never the store's and SDKs' internal names ({@link Namespaces#isInternal}), and then
 * needs a rule that allows the action and no rule that denies it (deny
 * overrides allow; no matching rule denies). Policies are read from the directory on every decision, so a change
 * applies to connected clients at once.
 *
 * <p>Authentication failures and denials are counted through {@link SecurityEvents} and logged without secrets (at
 * most one line per second each, so a misbehaving client cannot flood the log); a source failing repeatedly is
 * throttled ({@link FailureThrottle}).
 */
public final class SecurePolicy implements Authenticator, Authorizer, SignatureVerifier {

    private static final Logger LOG = LoggerFactory.getLogger(SecurePolicy.class);
    private static final long LOG_INTERVAL_NANOS = 1_000_000_000L;

    private final UserDirectory users;
    private final FailureThrottle throttle;
    private final SecurityEvents events;
    private final Executor hashing;
    private final Clock clock;
    private final Duration maxSkew;
    /** Digest of the last password that matched, per user and stored hash: reconnects skip PBKDF2. */
    private final ConcurrentHashMap<String, byte[]> verified = new ConcurrentHashMap<>();
    private final byte[] cacheSalt = new byte[16];
    private final AtomicLong lastFailureLog = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);
    private final AtomicLong lastDenialLog = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);

    /**
     * @param hashing runs password hashing off the caller's (event-loop) thread
     * @param maxSkew how far a signed request's time may be from the broker's clock
     */
    public SecurePolicy(final UserDirectory users, final FailureThrottle throttle, final SecurityEvents events,
                        final Executor hashing, final Clock clock, final Duration maxSkew) {
        this.users = users;
        this.throttle = throttle;
        this.events = events;
        this.hashing = hashing;
        this.clock = clock;
        this.maxSkew = maxSkew;
        new SecureRandom().nextBytes(cacheSalt);
    }

    // ----------------------------------------------------------------------------------------- authentication

    @Override
    public CompletableFuture<AuthResult> authenticate(final Credentials credentials) {
        if (throttle.throttled(credentials.remote(), credentials.username())) {
            return CompletableFuture.completedFuture(refuse(credentials.protocol(), credentials.username(),
                    credentials.remote(), "throttled", false));
        }
        if (credentials.kind() == Credentials.Kind.TOKEN) {
            final Optional<UserDirectory.TokenHolder> holder = credentials.secret().isEmpty() ? Optional.empty()
                    : users.holderOfToken(credentials.secret());
            if (holder.isPresent() && holder.get().term().expired(clock.millis())) {
                return CompletableFuture.completedFuture(refuse(credentials.protocol(), holder.get().user().name(),
                        credentials.remote(), "expired-token", true));
            }
            return CompletableFuture.completedFuture(holder.isPresent() && holder.get().user().enabled()
                    ? AuthResult.success(holder.get().user().principal())
                    : refuse(credentials.protocol(), "", credentials.remote(), "bad-token", true));
        }
        if (!credentials.hasUsername()) {
            return CompletableFuture.completedFuture(
                    refuse(credentials.protocol(), "", credentials.remote(), "anonymous", false));
        }
        final Optional<User> found = users.user(credentials.username());
        if (found.isEmpty() || !found.get().enabled() || found.get().passwordHash() == null) {
            return CompletableFuture.completedFuture(refuse(credentials.protocol(), credentials.username(),
                    credentials.remote(), found.isEmpty() ? "unknown-user" : "disabled-or-no-password", true));
        }
        final User user = found.get();
        final String cacheKey = user.name() + '\n' + user.passwordHash();
        final byte[] quick = quickDigest(credentials.secret());
        final byte[] known = verified.get(cacheKey);
        if (known != null && MessageDigest.isEqual(known, quick)) {
            return CompletableFuture.completedFuture(AuthResult.success(user.principal()));
        }
        return CompletableFuture.supplyAsync(() -> {
            if (PasswordHash.matches(credentials.secret(), user.passwordHash())) {
                if (verified.size() > 10_000) {
                    verified.clear();
                }
                verified.put(cacheKey, quick);
                return AuthResult.success(user.principal());
            }
            return refuse(credentials.protocol(), user.name(), credentials.remote(), "bad-password", true);
        }, hashing);
    }

    @Override
    public AuthResult verify(final SignedRequest request) {
        if (throttle.throttled(request.remote(), request.accessKey())) {
            return refuse(request.protocol(), request.accessKey(), request.remote(), "throttled", false);
        }
        if (request.accessKey().isEmpty()) {
            // No credentials at all: counted for the audit, not for the throttle (nothing is being guessed, and a
            // misconfigured client retrying forever must not lock out its host's other clients).
            return refuse(request.protocol(), "", request.remote(), "unsigned", false);
        }
        final Optional<User> user = users.user(request.accessKey());
        final Optional<String> secret = user.filter(User::enabled).flatMap(u -> users.signingSecret(u.name()));
        if (secret.isEmpty()) {
            return refuse(request.protocol(), request.accessKey(), request.remote(),
                    user.isEmpty() ? "unknown-user" : "disabled-or-no-secret", true);
        }
        if (request.signedAt() != null
                && Duration.between(request.signedAt(), clock.instant()).abs().compareTo(maxSkew) > 0) {
            return refuse(request.protocol(), request.accessKey(), request.remote(), "expired-signature", true);
        }
        final byte[] expected = hmacSha1(secret.get(), request.content());
        final byte[] presented;
        try {
            presented = request.encoding() == SignedRequest.Encoding.BASE64
                    ? Base64.getDecoder().decode(request.signature())
                    : HexFormat.of().parseHex(request.signature().toLowerCase(Locale.ROOT));
        } catch (final IllegalArgumentException e) {
            return refuse(request.protocol(), request.accessKey(), request.remote(), "malformed-signature", true);
        }
        return MessageDigest.isEqual(expected, presented) ? AuthResult.success(user.get().principal())
                : refuse(request.protocol(), request.accessKey(), request.remote(), "bad-signature", true);
    }

    private AuthResult refuse(final String protocol, final String user, final SocketAddress remote,
                              final String reason, final boolean countTowardsThrottle) {
        if (countTowardsThrottle) {
            throttle.failed(remote, user);
        }
        events.authenticationFailed(protocol, reason);
        if (due(lastFailureLog)) {
            LOG.warn("Authentication refused: protocol={} user={} remote={} reason={}", protocol,
                    user.isEmpty() ? "-" : user, remote, reason);
        }
        return AuthResult.failure(reason);
    }

    // ----------------------------------------------------------------------------------------- authorization

    @Override
    public Decision authorize(final Principal principal, final ResourceKind kind, final String name,
                              final Action action) {
        final Decision d = decide(principal, kind, name, action);
        if (d == Decision.DENY) {
            events.denied(kind, action);
            if (due(lastDenialLog)) {
                LOG.warn("Denied: user={} namespace={} {} {} {}", principal.name(), principal.namespace(), action,
                        kind, name);
            }
        }
        return d;
    }

    private Decision decide(final Principal principal, final ResourceKind kind, final String name,
                            final Action action) {
        final Optional<User> user = users.activeUser(principal);
        if (user.isEmpty()) {
            return Decision.DENY; // deleted, disabled or moved since the connection authenticated
        }
        if (user.get().superUser()) {
            return Decision.ALLOW;
        }
        if (Namespaces.isInternal(kind, name)) {
            return Decision.DENY;
        }
        final String local = kind == ResourceKind.CLUSTER ? name : Namespaces.localName(principal.namespace(), name,
                users::isTenant);
        if (local == null) {
            return Decision.DENY;
        }
        boolean allowed = false;
        for (final AclRule rule : user.get().rules()) {
            if (rule.covers(kind, local, action)) {
                if (rule.decision() == Decision.DENY) {
                    return Decision.DENY;
                }
                allowed = true;
            }
        }
        return allowed ? Decision.ALLOW : Decision.DENY;
    }

    // ----------------------------------------------------------------------------------------- helpers

    private static boolean due(final AtomicLong last) {
        final long now = System.nanoTime();
        final long prev = last.get();
        return now - prev >= LOG_INTERVAL_NANOS && last.compareAndSet(prev, now);
    }

    private byte[] quickDigest(final String password) {
        try {
            final MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(cacheSalt);
            return md.digest(password.getBytes(StandardCharsets.UTF_8));
        } catch (final GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Keyed HMAC-SHA1 instances per thread and secret: Remoting clients sign every request, and a provider lookup plus
     * keying per request costs more than the HMAC itself. Bounded: a thread keeps at most 64 keys.
     */
    private static final ThreadLocal<Map<String, Mac>> MACS = ThreadLocal.withInitial(HashMap::new);

    private static byte[] hmacSha1(final String secret, final byte[] content) {
        final Map<String, Mac> macs = MACS.get();
        Mac mac = macs.get(secret);
        if (mac == null) {
            if (macs.size() >= 64) {
                macs.clear();
            }
            try {
                mac = Mac.getInstance("HmacSHA1");
                mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            } catch (final GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA1 is part of every Java runtime", e);
            }
            macs.put(secret, mac);
        }
        return mac.doFinal(content); // doFinal resets the Mac for the next request
    }
}
