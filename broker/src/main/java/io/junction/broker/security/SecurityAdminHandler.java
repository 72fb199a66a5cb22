package io.junction.broker.security;

import static io.junction.broker.http.JsonReplies.body;
import static io.junction.broker.http.JsonReplies.json;
import static io.junction.broker.http.JsonReplies.problem;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.broker.http.JsonReplies;
import io.junction.spi.http.HttpAuthentication;
import io.junction.spi.http.HttpExchange;
import io.junction.spi.http.HttpHandler;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.AclRule;
import io.junction.tenancy.IssuedToken;
import io.junction.tenancy.Principal;
import io.junction.tenancy.Quota;
import io.junction.tenancy.TokenTerm;
import io.junction.tenancy.User;
import io.junction.tenancy.UserDirectory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * The user, ACL and quota admin API under {@value #PATH} and {@value #QUOTAS_PATH}, for super users (HTTP Basic or
 * Bearer):
 * <pre>
 * GET    /admin/users                   every user (never a secret: whether one is set)
 * GET    /admin/users/{name}            one user
 * PUT    /admin/users/{name}            {"namespace", "password", "secret", "super", "enabled"} creates or updates
 * DELETE /admin/users/{name}            removes the user, its tokens and policy
 * PUT    /admin/users/{name}/acl        {"rules": [{"resource": "Topic:orders*", "actions": ["PUB"], "decision": "ALLOW"}]}
 * POST   /admin/users/{name}/tokens     {"ttlSeconds"} optional (0: until revoked; default security.token-ttl-hours)
 *                                       issues a bearer token, shown once: {"user", "token", "id", "issuedAt",
 *                                       "expiresAt"} (epoch ms; 0: until revoked)
 * GET    /admin/users/{name}/tokens     {"user", "tokens": [{"id", "issuedAt", "expiresAt", "expired"}]}: never a token
 * DELETE /admin/users/{name}/tokens/{id} revokes that token
 * GET    /admin/quotas                  every namespace's quota
 * PUT    /admin/quotas/{namespace}      {"messagesPerSecond", "bytesPerSecond", "maxConnections"} (0: unlimited)
 * </pre>
 * Changes apply at once to connected clients. Directory writes (an fsync) run on the security executor, never on the
 * event loop.
 */
public final class SecurityAdminHandler implements HttpHandler {

    public static final String PATH = "/admin/users";
    public static final String QUOTAS_PATH = "/admin/quotas";

    private static final ObjectMapper JSON = JsonReplies.JSON;

    private final AccessControl access;
    private final Executor work;
    private final Duration tokenLifetime;

    /** @param tokenLifetime of a token issued without a lifetime of its own; zero: until revoked */
    public SecurityAdminHandler(final AccessControl access, final Executor work, final Duration tokenLifetime) {
        this.access = access;
        this.work = work;
        this.tokenLifetime = tokenLifetime;
    }

    @Override
    public void handle(final HttpExchange exchange) {
        if (access.users().isEmpty()) {
            problem(exchange, HttpResponseStatus.CONFLICT, "security is off (security.enabled=false): there are "
                    + "no users to administer");
            return;
        }
        HttpAuthentication.authenticate(access, "http", exchange, this::authenticated);
    }

    private void authenticated(final HttpExchange exchange, final Principal principal) {
        if (!principal.superUser()) {
            problem(exchange, HttpResponseStatus.FORBIDDEN, "only super users administer users");
            return;
        }
        final UserDirectory users = access.users().orElseThrow();
        if (exchange.path().startsWith(QUOTAS_PATH)) {
            quotas(exchange, users);
            return;
        }
        final String rest = exchange.path().length() > PATH.length() ? exchange.path().substring(PATH.length() + 1)
                : "";
        final String[] parts = rest.isEmpty() ? new String[0] : rest.split("/", -1);
        final HttpMethod method = exchange.request().method();
        try {
            if (parts.length == 0 && HttpMethod.GET.equals(method)) {
                final ArrayNode list = JSON.createArrayNode();
                users.users().forEach(u -> list.add(describe(u)));
                json(exchange, HttpResponseStatus.OK, list);
            } else if (parts.length == 1 && HttpMethod.GET.equals(method)) {
                final User u = users.user(parts[0]).orElse(null);
                if (u == null) {
                    problem(exchange, HttpResponseStatus.NOT_FOUND, "no user " + parts[0]);
                } else {
                    json(exchange, HttpResponseStatus.OK, describe(u));
                }
            } else if (parts.length == 1 && HttpMethod.PUT.equals(method)) {
                final JsonNode body = body(exchange);
                final String name = parts[0];
                final boolean created = users.user(name).isEmpty();
                final User old = users.user(name).orElse(null);
                final String namespace = body.path("namespace").asText(
                        old == null ? Principal.DEFAULT_NAMESPACE : old.namespace());
                final boolean superUser = body.path("super").asBoolean(old != null && old.superUser());
                final boolean enabled = body.path("enabled").asBoolean(old == null || old.enabled());
                final String password = text(body, "password");
                final String secret = text(body, "secret");
                write(exchange, created ? HttpResponseStatus.CREATED : HttpResponseStatus.OK, () -> describe(
                        users.putUser(name, namespace, superUser, enabled, password, secret)));
            } else if (parts.length == 1 && HttpMethod.DELETE.equals(method)) {
                final String name = parts[0];
                write(exchange, HttpResponseStatus.OK, () -> {
                    if (!users.deleteUser(name)) {
                        throw new IllegalArgumentException("no user " + name);
                    }
                    return JSON.createObjectNode().put("deleted", name);
                });
            } else if (parts.length == 2 && "acl".equals(parts[1]) && HttpMethod.PUT.equals(method)) {
                final List<AclRule> rules = new ArrayList<>();
                for (final JsonNode r : body(exchange).path("rules")) {
                    final List<String> actions = new ArrayList<>();
                    r.path("actions").forEach(a -> actions.add(a.asText()));
                    rules.add(AclRule.parse(r.path("resource").asText(), actions, r.path("decision").asText("ALLOW")));
                }
                write(exchange, HttpResponseStatus.OK, () -> describe(users.setRules(parts[0], rules)));
            } else if (parts.length == 2 && "tokens".equals(parts[1]) && HttpMethod.POST.equals(method)) {
                final Duration lifetime = lifetime(body(exchange));
                write(exchange, HttpResponseStatus.CREATED, () -> {
                    final String token = users.issueToken(parts[0], lifetime);
                    final TokenTerm term = users.holderOfToken(token).orElseThrow().term();
                    return JSON.createObjectNode().put("user", parts[0]).put("token", token)
                            .put("id", IssuedToken.idOfToken(token)).put("issuedAt", term.issuedAt())
                            .put("expiresAt", term.expiresAt());
                });
            } else if (parts.length == 2 && "tokens".equals(parts[1]) && HttpMethod.GET.equals(method)
                    && users.user(parts[0]).isEmpty()) {
                problem(exchange, HttpResponseStatus.NOT_FOUND, "no user " + parts[0]);
            } else if (parts.length == 2 && "tokens".equals(parts[1]) && HttpMethod.GET.equals(method)) {
                final ObjectNode answer = JSON.createObjectNode().put("user", parts[0]);
                final ArrayNode list = answer.putArray("tokens");
                final long now = System.currentTimeMillis();
                users.tokens(parts[0]).forEach(t -> list.addObject().put("id", t.id())
                        .put("issuedAt", t.term().issuedAt()).put("expiresAt", t.term().expiresAt())
                        .put("expired", t.term().expired(now)));
                json(exchange, HttpResponseStatus.OK, answer);
            } else if (parts.length == 3 && "tokens".equals(parts[1]) && HttpMethod.DELETE.equals(method)) {
                write(exchange, HttpResponseStatus.OK, () -> {
                    if (!users.revokeToken(parts[0], parts[2])) {
                        throw new NoSuchElementException(parts[0] + " has no token " + parts[2]);
                    }
                    return JSON.createObjectNode().put("user", parts[0]).put("revoked", parts[2]);
                });
            } else {
                problem(exchange, HttpResponseStatus.NOT_FOUND, "no such admin resource " + exchange.path());
            }
        } catch (final IllegalArgumentException e) {
            problem(exchange, HttpResponseStatus.BAD_REQUEST, e.getMessage());
        }
    }

    private void quotas(final HttpExchange exchange, final UserDirectory users) {
        final String path = exchange.path();
        final String namespace = path.length() > QUOTAS_PATH.length() ? path.substring(QUOTAS_PATH.length() + 1) : "";
        final HttpMethod method = exchange.request().method();
        try {
            if (namespace.isEmpty() && HttpMethod.GET.equals(method)) {
                final ObjectNode all = JSON.createObjectNode();
                users.quotas().forEach((ns, q) -> all.set(ns, describe(q)));
                json(exchange, HttpResponseStatus.OK, all);
            } else if (!namespace.isEmpty() && namespace.indexOf('/') < 0 && HttpMethod.PUT.equals(method)) {
                final JsonNode body = body(exchange);
                final Quota quota = new Quota(body.path("messagesPerSecond").asLong(0),
                        body.path("bytesPerSecond").asLong(0), body.path("maxConnections").asInt(0));
                write(exchange, HttpResponseStatus.OK, () -> {
                    users.setQuota(namespace, quota);
                    return describe(quota).put("namespace", namespace);
                });
            } else {
                problem(exchange, HttpResponseStatus.NOT_FOUND, "use GET " + QUOTAS_PATH + " or PUT " + QUOTAS_PATH
                        + "/{namespace}");
            }
        } catch (final IllegalArgumentException e) {
            problem(exchange, HttpResponseStatus.BAD_REQUEST, e.getMessage());
        }
    }

    /** The body's {@code ttlSeconds}, or the configured lifetime when it has none. */
    private Duration lifetime(final JsonNode body) {
        final JsonNode ttl = body.get("ttlSeconds");
        if (ttl == null || ttl.isNull()) {
            return tokenLifetime;
        }
        if (!ttl.canConvertToLong() || ttl.asLong() < 0) {
            throw new IllegalArgumentException("ttlSeconds is a whole number of seconds, 0 for a token that lasts "
                    + "until revoked: " + ttl);
        }
        return Duration.ofSeconds(ttl.asLong());
    }

    private static ObjectNode describe(final Quota q) {
        return JSON.createObjectNode().put("messagesPerSecond", q.messagesPerSecond())
                .put("bytesPerSecond", q.bytesPerSecond()).put("maxConnections", q.maxConnections());
    }

    /** Runs a directory change off the event loop and answers with its result (400 for a refused change). */
    private void write(final HttpExchange exchange, final HttpResponseStatus status, final Supplier<JsonNode> change) {
        try {
            work.execute(() -> {
                try {
                    json(exchange, status, change.get());
                } catch (final IllegalArgumentException e) {
                    problem(exchange, e.getMessage().startsWith("no user") ? HttpResponseStatus.NOT_FOUND
                            : HttpResponseStatus.BAD_REQUEST, e.getMessage());
                } catch (final NoSuchElementException e) {
                    problem(exchange, HttpResponseStatus.NOT_FOUND, e.getMessage());
                } catch (final RuntimeException e) {
                    problem(exchange, HttpResponseStatus.INTERNAL_SERVER_ERROR, "not stored: " + e.getMessage());
                }
            });
        } catch (final RejectedExecutionException e) {
            problem(exchange, HttpResponseStatus.SERVICE_UNAVAILABLE, "busy");
        }
    }

    private static ObjectNode describe(final User u) {
        final ObjectNode n = JSON.createObjectNode();
        n.put("name", u.name()).put("namespace", u.namespace()).put("super", u.superUser())
                .put("enabled", u.enabled()).put("password", u.passwordHash() != null)
                .put("secret", u.sealedSecret() != null).put("tokens", u.tokenDigests().size());
        final ArrayNode acl = n.putArray("acl");
        for (final AclRule r : u.rules()) {
            final ObjectNode rn = acl.addObject().put("resource", r.resource()).put("decision", r.decision().name());
            final ArrayNode actions = rn.putArray("actions");
            r.actions().stream().sorted().forEach(a -> actions.add(a.name()));
        }
        return n;
    }

    private static String text(final JsonNode body, final String field) {
        final JsonNode v = body.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }
}
