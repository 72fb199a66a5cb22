package io.junction.tenancy;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The users and their policies, held in memory for lock-free reads on every request and written to one JSON file on
 * every change (to a temporary file, forced, then renamed over the old one, so a crash leaves the old or the new
 * directory, never half of one).
 *
 * <p>Readers see an immutable snapshot; writers are serialized. Passwords are stored as {@link PasswordHash}es, signing
 * secrets sealed by the {@link SecretCipher}, bearer tokens as digests.
 *
 * <p>Every change moves the {@link #version()} on, after the new snapshot is in place, so a decision remembered with
 * the version it was made at stays true until the version moves; and every change is told to the
 * {@link ChangeListener}s with the users it touched.
 */
public final class UserDirectory {

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .setDefaultPropertyInclusion(JsonInclude.Include.NON_NULL);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Bearer tokens one user may hold: a listing stays small, and a leaked admin script cannot grow the file. */
    public static final int MAX_TOKENS = 100;

    /** One consistent view: users by name, and by token digest. */
    private record Snapshot(Map<String, User> users, Map<String, User> byToken, Set<String> namespaces,
                            Map<String, Quota> quotas) {
        static Snapshot of(final Collection<User> users, final Map<String, Quota> quotas) {
            final Map<String, User> byName = new LinkedHashMap<>();
            final Map<String, User> byToken = new HashMap<>();
            final Set<String> namespaces = new HashSet<>();
            for (final User u : users) {
                byName.put(u.name(), u);
                u.tokenDigests().forEach(d -> byToken.put(d, u));
                if (!Principal.DEFAULT_NAMESPACE.equals(u.namespace())) {
                    namespaces.add(u.namespace());
                }
            }
            return new Snapshot(Map.copyOf(byName), Map.copyOf(byToken), Set.copyOf(namespaces), Map.copyOf(quotas));
        }
    }

    /**
     * Told of each change once it is in place: which users' records differ (added, removed or changed), and whether
     * the set of tenants changed (that moves which names count as a tenant's for every default-namespace user).
     * Called on the writer's thread while writes are held off: an implementation hands the work over and returns.
     */
    @FunctionalInterface
    public interface ChangeListener {
        void changed(Set<String> users, boolean tenantsChanged);
    }

    private final Path file;
    private final SecretCipher cipher;
    private final Clock clock;
    private volatile Snapshot snapshot;
    /** Moved on by every change, after {@link #snapshot}: see {@link #version()}. */
    private volatile long version;
    private final List<ChangeListener> listeners = new CopyOnWriteArrayList<>();
    /** Decrypted signing secrets, by user name; rebuilt lazily after a change. */
    private volatile Map<String, String> secrets;

    private UserDirectory(final Path file, final SecretCipher cipher, final Clock clock, final Collection<User> users,
                          final Map<String, Quota> quotas) {
        this.file = file;
        this.cipher = cipher;
        this.clock = clock;
        this.snapshot = Snapshot.of(users, quotas);
    }

    /**
     * Opens the directory kept in {@code file} (empty when the file does not exist yet).
     *
     * @throws IllegalArgumentException when the file is malformed or the cipher's key does not open its secrets
     */
    public static UserDirectory open(final Path file, final SecretCipher cipher) {
        return open(file, cipher, Clock.systemUTC());
    }

    /** As {@link #open(Path, SecretCipher)}, with the clock that dates (and so expires) issued tokens. */
    public static UserDirectory open(final Path file, final SecretCipher cipher, final Clock clock) {
        final List<User> users = new ArrayList<>();
        final Map<String, Quota> quotas = new HashMap<>();
        if (Files.exists(file)) {
            try {
                final JsonNode root = JSON.readTree(file.toFile());
                for (final JsonNode u : root.path("users")) {
                    users.add(readUser(u));
                }
                for (final JsonNode q : root.path("quotas")) {
                    quotas.put(q.path("namespace").asText(), new Quota(q.path("messagesPerSecond").asLong(0),
                            q.path("bytesPerSecond").asLong(0), q.path("maxConnections").asInt(0)));
                }
            } catch (final IOException e) {
                throw new IllegalArgumentException("cannot read the user directory " + file + ": " + e.getMessage(),
                        e);
            }
        }
        final UserDirectory directory = new UserDirectory(file, cipher, clock, users, quotas);
        directory.secrets(); // fail at start, not at the first signed request, when the key is wrong
        return directory;
    }

    public Optional<User> user(final String name) {
        return Optional.ofNullable(snapshot.users().get(name));
    }

    /**
     * The user {@code principal} authenticated as, while it may still act: not deleted, not disabled, not moved to
     * another namespace since.
     */
    public Optional<User> activeUser(final Principal principal) {
        final User user = snapshot.users().get(principal.name());
        return user != null && user.enabled() && user.namespace().equals(principal.namespace()) ? Optional.of(user)
                : Optional.empty();
    }

    /**
     * The version of the users and their rules: it moves on with every change, after the change is visible. Read it
     * before deciding; a decision made then holds while the version stays the same.
     */
    public long version() {
        return version;
    }

    /** Adds a listener told of every later change. */
    public void addListener(final ChangeListener listener) {
        listeners.add(listener);
    }

    public List<User> users() {
        return List.copyOf(snapshot.users().values());
    }

    /** Whether some user belongs to tenant {@code namespace} (the default namespace is no tenant). */
    public boolean isTenant(final String namespace) {
        return snapshot.namespaces().contains(namespace);
    }

    /** The quota of a namespace; null when it has none (unlimited). */
    public Quota quota(final String namespace) {
        return snapshot.quotas().get(namespace);
    }

    /** Every namespace's quota. */
    public Map<String, Quota> quotas() {
        return snapshot.quotas();
    }

    /** Sets (or, with {@link Quota#UNLIMITED}, removes) a namespace's quota. */
    public synchronized void setQuota(final String namespace, final Quota quota) {
        if (!Namespaces.valid(namespace)) {
            throw new IllegalArgumentException("a namespace is 1 to 64 letters, digits, _ or -: " + namespace);
        }
        final Map<String, Quota> next = new HashMap<>(snapshot.quotas());
        if (quota.unlimited()) {
            next.remove(namespace);
        } else {
            next.put(namespace, quota);
        }
        commit(Snapshot.of(snapshot.users().values(), next));
    }

    /** A bearer token's user and the token's term. */
    public record TokenHolder(User user, TokenTerm term) {
    }

    /** Who a bearer token was issued to, and until when (expired or not: the caller decides, and says why). */
    public Optional<TokenHolder> holderOfToken(final String token) {
        final String digest = PasswordHash.tokenDigest(token);
        final User user = snapshot.byToken().get(digest);
        return user == null ? Optional.empty() : Optional.of(new TokenHolder(user, user.tokens().get(digest)));
    }

    /** The signing secret of {@code name}, decrypted, or empty when the user has none. */
    public Optional<String> signingSecret(final String name) {
        return Optional.ofNullable(secrets().get(name));
    }

    private Map<String, String> secrets() {
        Map<String, String> s = secrets;
        if (s == null) {
            final Map<String, String> decrypted = new HashMap<>();
            for (final User u : snapshot.users().values()) {
                if (u.sealedSecret() != null) {
                    decrypted.put(u.name(), cipher.decrypt(u.sealedSecret()));
                }
            }
            s = Map.copyOf(decrypted);
            secrets = s;
        }
        return s;
    }

    /**
     * Creates or replaces a user. A null {@code password} or {@code secret} keeps the existing one (none for a new
     * user); rules and tokens are kept.
     */
    public synchronized User putUser(final String name, final String namespace, final boolean superUser,
                                     final boolean enabled, final String password, final String secret) {
        final User old = snapshot.users().get(name);
        final User user = new User(name, namespace, superUser, enabled,
                password != null ? PasswordHash.hash(password) : old == null ? null : old.passwordHash(),
                secret != null ? cipher.encrypt(secret) : old == null ? null : old.sealedSecret(),
                old == null ? Map.of() : old.tokens(), old == null ? List.of() : old.rules());
        replace(name, user);
        return user;
    }

    /** Removes a user (and so its tokens and policy); false when there was none. */
    public synchronized boolean deleteUser(final String name) {
        if (!snapshot.users().containsKey(name)) {
            return false;
        }
        replace(name, null);
        return true;
    }

    /** Replaces a user's policy. */
    public synchronized User setRules(final String name, final List<AclRule> rules) {
        final User user = existing(name).withRules(rules);
        replace(name, user);
        return user;
    }

    /**
     * Issues a new bearer token to {@code name}; the token is returned once and only its digest (and its term) is
     * kept. The user's expired tokens are dropped: they can never authenticate again.
     *
     * @param lifetime how long it authenticates; zero for a token that lasts until revoked
     * @throws IllegalArgumentException for an unknown user, one holding {@value #MAX_TOKENS} tokens already, or a
     *                                  negative lifetime
     */
    public synchronized String issueToken(final String name, final Duration lifetime) {
        if (lifetime.isNegative()) {
            throw new IllegalArgumentException("a token's lifetime cannot be negative: " + lifetime);
        }
        final User user = existing(name);
        final long now = clock.millis();
        final Map<String, TokenTerm> tokens = new HashMap<>(user.tokens());
        tokens.values().removeIf(t -> t.expired(now));
        if (tokens.size() >= MAX_TOKENS) {
            throw new IllegalArgumentException(name + " holds " + MAX_TOKENS + " tokens already: revoke one first");
        }
        final byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        final String token = "jt_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        tokens.put(PasswordHash.tokenDigest(token),
                new TokenTerm(now, lifetime.isZero() ? 0 : now + lifetime.toMillis()));
        replace(name, user.withTokens(tokens));
        return token;
    }

    /** The tokens of {@code name} (never a token or its digest), oldest first. */
    public List<IssuedToken> tokens(final String name) {
        return existing(name).tokens().entrySet().stream()
                .map(e -> IssuedToken.of(e.getKey(), e.getValue()))
                .sorted(Comparator.comparingLong((IssuedToken t) -> t.term().issuedAt()).thenComparing(IssuedToken::id))
                .toList();
    }

    /**
     * Revokes the token of {@code name} with id {@code id} (see {@link IssuedToken#id()}): it no longer
     * authenticates from the next request on.
     *
     * @return false when the user has no token with that id
     * @throws IllegalArgumentException for an unknown user
     */
    public synchronized boolean revokeToken(final String name, final String id) {
        final User user = existing(name);
        final Map<String, TokenTerm> tokens = new HashMap<>(user.tokens());
        if (!tokens.keySet().removeIf(d -> IssuedToken.idOf(d).equals(id))) {
            return false;
        }
        replace(name, user.withTokens(tokens));
        return true;
    }

    private User existing(final String name) {
        final User user = snapshot.users().get(name);
        if (user == null) {
            throw new IllegalArgumentException("no user " + name);
        }
        return user;
    }

    private void replace(final String name, final User user) {
        final Map<String, User> next = new LinkedHashMap<>(snapshot.users());
        if (user == null) {
            next.remove(name);
        } else {
            next.put(name, user);
        }
        commit(Snapshot.of(next.values(), snapshot.quotas()));
    }

    private void commit(final Snapshot s) {
        write(s);
        final Snapshot before = snapshot;
        snapshot = s;
        secrets = null;
        version = version + 1; // only writers write it, one at a time (every writer is synchronized)
        final Set<String> touched = new HashSet<>();
        for (final String name : before.users().keySet()) {
            if (!before.users().get(name).equals(s.users().get(name))) {
                touched.add(name);
            }
        }
        for (final String name : s.users().keySet()) {
            if (!before.users().containsKey(name)) {
                touched.add(name);
            }
        }
        final boolean tenantsChanged = !before.namespaces().equals(s.namespaces());
        if (!touched.isEmpty() || tenantsChanged) {
            final Set<String> users = Set.copyOf(touched);
            listeners.forEach(l -> l.changed(users, tenantsChanged));
        }
    }

    private void write(final Snapshot s) {
        final ObjectNode root = JSON.createObjectNode();
        final ArrayNode users = root.putArray("users");
        for (final User u : s.users().values()) {
            final ObjectNode n = users.addObject();
            n.put("name", u.name());
            n.put("namespace", u.namespace());
            n.put("super", u.superUser());
            n.put("enabled", u.enabled());
            if (u.passwordHash() != null) {
                n.put("passwordHash", u.passwordHash());
            }
            if (u.sealedSecret() != null) {
                n.put("sealedSecret", u.sealedSecret());
            }
            final ArrayNode tokens = n.putArray("tokens");
            u.tokens().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(t -> tokens.addObject()
                    .put("digest", t.getKey()).put("issuedAt", t.getValue().issuedAt())
                    .put("expiresAt", t.getValue().expiresAt()));
            final ArrayNode acl = n.putArray("acl");
            for (final AclRule r : u.rules()) {
                final ObjectNode rn = acl.addObject();
                rn.put("resource", r.resource());
                final ArrayNode actions = rn.putArray("actions");
                r.actions().stream().sorted().forEach(a -> actions.add(a.name()));
                rn.put("decision", r.decision().name());
            }
        }
        final ArrayNode quotas = root.putArray("quotas");
        s.quotas().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> quotas.addObject()
                .put("namespace", e.getKey()).put("messagesPerSecond", e.getValue().messagesPerSecond())
                .put("bytesPerSecond", e.getValue().bytesPerSecond())
                .put("maxConnections", e.getValue().maxConnections()));
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.write(tmp, JSON.writeValueAsBytes(root));
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write the user directory " + file, e);
        }
    }

    private static User readUser(final JsonNode n) {
        final List<AclRule> rules = new ArrayList<>();
        for (final JsonNode r : n.path("acl")) {
            final List<String> actions = new ArrayList<>();
            r.path("actions").forEach(a -> actions.add(a.asText()));
            rules.add(AclRule.parse(r.path("resource").asText(), actions, r.path("decision").asText()));
        }
        final Map<String, TokenTerm> tokens = new HashMap<>();
        // "tokenDigests" was written before issue times were kept; "expiresAt" is missing from before expiry
        n.path("tokenDigests").forEach(t -> tokens.put(t.asText(), new TokenTerm(0, 0)));
        n.path("tokens").forEach(t -> tokens.put(t.path("digest").asText(),
                new TokenTerm(t.path("issuedAt").asLong(0), t.path("expiresAt").asLong(0))));
        return new User(n.path("name").asText(), n.path("namespace").asText(Principal.DEFAULT_NAMESPACE),
                n.path("super").asBoolean(false), n.path("enabled").asBoolean(true),
                n.hasNonNull("passwordHash") ? n.get("passwordHash").asText() : null,
                n.hasNonNull("sealedSecret") ? n.get("sealedSecret").asText() : null, tokens, rules);
    }
}
