package io.junction.remoting.security;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.remoting.processor.RequestProcessor;
import io.junction.remoting.processor.Responses;
import io.junction.remoting.protocol.HeaderException;
import io.junction.remoting.protocol.Json;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.tenancy.AccessControl;
import io.junction.tenancy.AclRule;
import io.junction.tenancy.Principal;
import io.junction.tenancy.User;
import io.junction.tenancy.UserDirectory;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * RocketMQ 5.3's ACL 2.0 administration ({@code AUTH_*_USER}, {@code AUTH_*_ACL}, as {@code DefaultMQAdminExt} and
 * {@code mqadmin createUser/createAcl/...} send them) on the broker's user directory. Who may call it is decided by
 * {@link RequestPermissions} (super users only). Directory writes fsync a file: they run on {@code writes}, never on
 * the event loop.
 *
 * <p>Mapping: a RocketMQ user is a directory user whose password is also its signing secret (RocketMQ signs with the
 * password); {@code userType} Super/Normal is the super-user flag, {@code userStatus} enable/disable the enabled
 * flag. RocketMQ users have no namespace: a new user is created in the default namespace and an update keeps the
 * user's namespace. An ACL's subject is {@code User:<name>}; each policy entry (resource, actions, decision) is one
 * rule, and as in RocketMQ a resource has at most one entry: creating or updating an entry replaces the rule of the
 * same resource. Source-IP conditions are refused (the directory has none, and dropping one would widen a rule).
 */
public final class UserAdminProcessor implements RequestProcessor {
    private static final String USER_SUBJECT = "User:";

    private final AccessControl access;
    private final Executor writes;

    public UserAdminProcessor(final AccessControl access, final Executor writes) {
        this.access = access;
        this.writes = writes;
    }

    @Override
    public CompletableFuture<RemotingCommand> process(final Channel channel, final RemotingCommand request) {
        final Optional<UserDirectory> found = access.users();
        if (found.isEmpty()) {
            return Responses.done(Responses.error(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    "security is off on this broker (security.enabled=false): there are no users to manage"));
        }
        final UserDirectory users = found.get();
        return switch (request.code()) {
            case RequestCode.AUTH_CREATE_USER -> write(request, () -> putUser(users, request, true));
            case RequestCode.AUTH_UPDATE_USER -> write(request, () -> putUser(users, request, false));
            case RequestCode.AUTH_DELETE_USER -> write(request, () -> {
                final String name = request.requireField("username");
                return users.deleteUser(name) ? null : "The user " + name + " does not exist";
            });
            case RequestCode.AUTH_GET_USER -> Responses.done(users.user(request.requireField("username"))
                    .map(u -> Responses.success(request).body(Json.bytes(Json.write(userInfo(u)))))
                    .orElseGet(() -> Responses.success(request)));
            case RequestCode.AUTH_LIST_USER -> Responses.done(listUsers(users, request));
            case RequestCode.AUTH_CREATE_ACL, RequestCode.AUTH_UPDATE_ACL -> write(request,
                    () -> mergeAcl(users, request));
            case RequestCode.AUTH_DELETE_ACL -> write(request, () -> deleteAcl(users, request));
            case RequestCode.AUTH_GET_ACL -> Responses.done(users.user(subject(request.requireField("subject")))
                    .map(u -> Responses.success(request).body(Json.bytes(Json.write(aclInfo(u)))))
                    .orElseGet(() -> Responses.success(request)));
            case RequestCode.AUTH_LIST_ACL -> Responses.done(listAcls(users, request));
            default -> Responses.done(Responses.error(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    " request type " + request.code() + " not supported"));
        };
    }

    /** A write returning null on success, or the refusal's text (RocketMQ answers those NO_PERMISSION). */
    private CompletableFuture<RemotingCommand> write(final RemotingCommand request,
                                                     final Supplier<String> change) {
        return CompletableFuture.supplyAsync(() -> {
            final String refusal = change.get();
            return refusal == null ? Responses.success(request)
                    : Responses.error(request, ResponseCode.NO_PERMISSION, refusal);
        }, writes);
    }

    private static String putUser(final UserDirectory users, final RemotingCommand request, final boolean create) {
        final String name = request.requireField("username");
        final JsonNode info = body(request);
        final Optional<User> old = users.user(name);
        if (create && old.isPresent()) {
            return "The user " + name + " already exists";
        }
        if (!create && old.isEmpty()) {
            return "The user " + name + " does not exist";
        }
        final String password = Json.text(info, "password");
        if (create && (password == null || password.isEmpty())) {
            throw new IllegalArgumentException("a new user needs a password");
        }
        final String type = Json.text(info, "userType");
        final String status = Json.text(info, "userStatus");
        final boolean superUser = type == null ? old.map(User::superUser).orElse(false) : parseType(type);
        final boolean enabled = status == null ? old.map(User::enabled).orElse(true) : parseStatus(status);
        final String namespace = old.map(User::namespace).orElse(Principal.DEFAULT_NAMESPACE);
        final String secret = password == null || password.isEmpty() ? null : password;
        users.putUser(name, namespace, superUser, enabled, secret, secret);
        return null;
    }

    private static boolean parseType(final String type) {
        return switch (type.toLowerCase(Locale.ROOT)) {
            case "super" -> true;
            case "normal" -> false;
            default -> throw new IllegalArgumentException("userType is Super or Normal: " + type);
        };
    }

    private static boolean parseStatus(final String status) {
        return switch (status.toLowerCase(Locale.ROOT)) {
            case "enable" -> true;
            case "disable" -> false;
            default -> throw new IllegalArgumentException("userStatus is enable or disable: " + status);
        };
    }

    private static String mergeAcl(final UserDirectory users, final RemotingCommand request) {
        final JsonNode info = body(request);
        final String subject = Json.text(info, "subject") != null ? Json.text(info, "subject")
                : request.requireField("subject");
        final String name = subject(subject);
        final Optional<User> user = users.user(name);
        if (user.isEmpty()) {
            return "The subject " + subject + " does not exist";
        }
        final Map<String, AclRule> rules = new LinkedHashMap<>();
        for (AclRule r : user.get().rules()) {
            rules.put(r.resource(), r);
        }
        for (JsonNode policy : iterable(info.get("policies"))) {
            for (JsonNode entry : iterable(policy.get("entries"))) {
                final JsonNode ips = entry.get("sourceIps");
                if (ips != null && ips.isArray() && ips.size() > 0) {
                    throw new IllegalArgumentException("source IP conditions are not supported");
                }
                final List<String> actions = new ArrayList<>();
                for (JsonNode a : iterable(entry.get("actions"))) {
                    for (String part : a.asText().split(",")) {
                        if (!part.isBlank()) {
                            actions.add(part.trim());
                        }
                    }
                }
                final String decision = Json.text(entry, "decision");
                final AclRule rule = AclRule.parse(resource(Json.text(entry, "resource")), actions,
                        decision == null ? "ALLOW" : decision);
                rules.put(rule.resource(), rule);
            }
        }
        users.setRules(name, List.copyOf(rules.values()));
        return null;
    }

    private static String deleteAcl(final UserDirectory users, final RemotingCommand request) {
        final String subject = request.requireField("subject");
        final String name = subject(subject);
        final Optional<User> user = users.user(name);
        if (user.isEmpty()) {
            return "The subject " + subject + " does not exist";
        }
        final String resource = request.field("resource");
        if (resource == null || resource.isBlank()) {
            users.setRules(name, List.of());
            return null;
        }
        final String normalized = AclRule.parse(resource(resource), List.of("ALL"), "ALLOW").resource();
        users.setRules(name, user.get().rules().stream().filter(r -> !r.resource().equals(normalized)).toList());
        return null;
    }

    private static RemotingCommand listUsers(final UserDirectory users, final RemotingCommand request) {
        final String filter = request.field("filter");
        final List<Object> out = new ArrayList<>();
        for (User u : users.users()) {
            if (filter == null || filter.isEmpty() || u.name().contains(filter)) {
                out.add(userInfo(u));
            }
        }
        return Responses.success(request).body(Json.bytes(Json.write(out)));
    }

    private static RemotingCommand listAcls(final UserDirectory users, final RemotingCommand request) {
        final String subjectFilter = request.field("subjectFilter");
        final String resourceFilter = request.field("resourceFilter");
        final List<Object> out = new ArrayList<>();
        for (User u : users.users()) {
            if (u.rules().isEmpty() || subjectFilter != null && !subjectFilter.isEmpty()
                    && !(USER_SUBJECT + u.name()).contains(subjectFilter)) {
                continue;
            }
            if (resourceFilter != null && !resourceFilter.isEmpty()
                    && u.rules().stream().noneMatch(r -> r.resource().contains(resourceFilter))) {
                continue;
            }
            out.add(aclInfo(u));
        }
        return Responses.success(request).body(Json.bytes(Json.write(out)));
    }

    /** RocketMQ's {@code UserInfo}, without the password (the directory keeps only a hash and a sealed secret). */
    private static Map<String, Object> userInfo(final User u) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("username", u.name());
        m.put("userStatus", u.enabled() ? "enable" : "disable");
        m.put("userType", u.superUser() ? "Super" : "Normal");
        return m;
    }

    /** RocketMQ's {@code AclInfo}: one custom policy holding every rule. */
    private static Map<String, Object> aclInfo(final User u) {
        final List<Object> entries = new ArrayList<>();
        for (AclRule r : u.rules()) {
            final Map<String, Object> e = new LinkedHashMap<>();
            e.put("actions", r.actions().stream().map(a -> capitalized(a.name())).sorted().toList());
            e.put("decision", capitalized(r.decision().name()));
            e.put("resource", r.resource());
            e.put("sourceIps", List.of());
            entries.add(e);
        }
        final Map<String, Object> policy = new LinkedHashMap<>();
        policy.put("entries", entries);
        policy.put("policyType", "Custom");
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("policies", List.of(policy));
        m.put("subject", USER_SUBJECT + u.name());
        return m;
    }

    private static String capitalized(final String upper) {
        return upper.charAt(0) + upper.substring(1).toLowerCase(Locale.ROOT);
    }

    /** The user name of a {@code User:<name>} subject. */
    private static String subject(final String subject) {
        if (subject == null || !subject.regionMatches(true, 0, USER_SUBJECT, 0, USER_SUBJECT.length())
                || subject.length() == USER_SUBJECT.length()) {
            throw new IllegalArgumentException("a subject is User:<name>: " + subject);
        }
        return subject.substring(USER_SUBJECT.length());
    }

    /** RocketMQ writes "any resource" as {@code *} or {@code Any:*}. */
    private static String resource(final String resource) {
        if (resource == null || resource.isBlank()) {
            throw new IllegalArgumentException("an ACL entry needs a resource");
        }
        return "any:*".equalsIgnoreCase(resource.trim()) ? "*" : resource.trim();
    }

    private static JsonNode body(final RemotingCommand request) {
        if (request.body() == null || request.body().length == 0) {
            throw new HeaderException("the request has no body");
        }
        return Json.parse(request.body());
    }

    private static Iterable<JsonNode> iterable(final JsonNode node) {
        return node == null || !node.isArray() ? List.of() : node;
    }
}
