package io.junction.broker.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code java -jar junction.jar admin ...}: users, ACL rules, tokens and quotas of a running broker, through its HTTP
 * admin API ({@code /admin/users}, {@code /admin/quotas}). Prints the broker's JSON answer; exit code 0 when the
 * broker accepted the change, 1 when it refused it (the answer says why), 2 for a bad command line.
 */
@Command(name = "admin", mixinStandardHelpOptions = true,
        description = "Administers users, ACL rules, tokens and quotas of a running broker (security on).",
        subcommands = {AdminCommand.Users.class, AdminCommand.PutUser.class, AdminCommand.DeleteUser.class,
            AdminCommand.SetAcl.class, AdminCommand.IssueToken.class, AdminCommand.Tokens.class,
            AdminCommand.RevokeToken.class, AdminCommand.Quotas.class,
            AdminCommand.SetQuota.class})
public final class AdminCommand {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--url", defaultValue = "http://127.0.0.1:8080",
            description = "The broker's HTTP base URL (default ${DEFAULT-VALUE}).")
    String url;

    @Option(names = "--user", defaultValue = "admin", description = "A super user (default ${DEFAULT-VALUE}).")
    String user;

    @Option(names = "--password", defaultValue = "${env:JUNCTION_ADMIN_PASSWORD}",
            description = "Its password; default from the JUNCTION_ADMIN_PASSWORD environment variable, which keeps "
                    + "it out of the process list.")
    String password;

    @Spec
    CommandSpec spec;

    int send(final String method, final String path, final ObjectNode body) {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (password == null || password.isEmpty()) {
            err.println("junction admin: no password (--password or JUNCTION_ADMIN_PASSWORD)");
            return 2;
        }
        final HttpRequest request = HttpRequest.newBuilder(URI.create(url + path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        (user + ":" + password).getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
        try {
            final HttpResponse<String> response = HttpClient.newHttpClient().send(request,
                    HttpResponse.BodyHandlers.ofString());
            (response.statusCode() / 100 == 2 ? out : err).println(response.body());
            return response.statusCode() / 100 == 2 ? 0 : 1;
        } catch (final IOException e) {
            err.println("junction admin: cannot reach " + url + ": " + e.getMessage());
            return 1;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    @Command(name = "users", description = "Lists users and their rules (never a secret).")
    static final class Users implements Callable<Integer> {
        @ParentCommand
        AdminCommand admin;

        @Override
        public Integer call() {
            return admin.send("GET", "/admin/users", null);
        }
    }

    @Command(name = "user", description = "Creates or updates a user; unset options keep their current value.")
    static final class PutUser implements Callable<Integer> {
        @ParentCommand
        AdminCommand admin;

        @Parameters(index = "0", description = "The user name.")
        String name;

        @Option(names = "--namespace", description = "The user's namespace (tenant); new users default to default.")
        String namespace;

        @Option(names = "--set-password", description = "The user's password (MQTT, AMQP PLAIN, HTTP Basic).")
        String newPassword;

        @Option(names = "--secret", description = "The user's signing secret (RocketMQ Remoting and gRPC).")
        String secret;

        @Option(names = "--super", description = "Super user: every namespace, every action.")
        Boolean superUser;

        @Option(names = "--enabled", arity = "1", description = "true or false.")
        Boolean enabled;

        @Override
        public Integer call() {
            final ObjectNode body = JSON.createObjectNode();
            if (namespace != null) {
                body.put("namespace", namespace);
            }
            if (newPassword != null) {
                body.put("password", newPassword);
            }
            if (secret != null) {
                body.put("secret", secret);
            }
            if (superUser != null) {
                body.put("super", superUser);
            }
            if (enabled != null) {
                body.put("enabled", enabled);
            }
            return admin.send("PUT", "/admin/users/" + name, body);
        }
    }

    @Command(name = "delete-user", description = "Removes a user, its tokens and its rules.")
    static final class DeleteUser implements Callable<Integer> {
        @ParentCommand
        AdminCommand admin;

        @Parameters(index = "0", description = "The user name.")
        String name;

        @Override
        public Integer call() {
            return admin.send("DELETE", "/admin/users/" + name, null);
        }
    }

    @Command(name = "acl", description = "Replaces a user's rules, e.g. --allow 'Topic:orders*=PUB,SUB' "
            + "--deny 'Topic:payroll=SUB'. Deny overrides allow; no rule denies.")
    static final class SetAcl implements Callable<Integer> {
        @ParentCommand
        AdminCommand admin;

        @Parameters(index = "0", description = "The user name.")
        String name;

        @Option(names = "--allow", paramLabel = "RESOURCE=ACTIONS", description = "An allowing rule; repeatable.")
        List<String> allow = new ArrayList<>();

        @Option(names = "--deny", paramLabel = "RESOURCE=ACTIONS", description = "A denying rule; repeatable.")
        List<String> deny = new ArrayList<>();

        @Override
        public Integer call() {
            final ObjectNode body = JSON.createObjectNode();
            final ArrayNode rules = body.putArray("rules");
            try {
                allow.forEach(r -> rule(rules, r, "ALLOW"));
                deny.forEach(r -> rule(rules, r, "DENY"));
            } catch (final IllegalArgumentException e) {
                admin.spec.commandLine().getErr().println("junction admin: " + e.getMessage());
                return 2;
            }
            return admin.send("PUT", "/admin/users/" + name + "/acl", body);
        }

        private static void rule(final ArrayNode rules, final String text, final String decision) {
            final int eq = text.lastIndexOf('=');
            if (eq <= 0 || eq == text.length() - 1) {
                throw new IllegalArgumentException("a rule is RESOURCE=ACTIONS, e.g. Topic:orders*=PUB,SUB: " + text);
            }
            final ObjectNode r = rules.addObject().put("resource", text.substring(0, eq)).put("decision", decision);
            final ArrayNode actions = r.putArray("actions");
            for (final String a : text.substring(eq + 1).split(",")) {
                actions.add(a.trim());
            }
        }
    }

    @Command(name = "token", description = "Issues a bearer token to a user (printed once).")
    static final class IssueToken implements Callable<Integer> {
        @ParentCommand
        AdminCommand admin;

        @Parameters(index = "0", description = "The user name.")
        String name;

        @Option(names = "--ttl-hours", description = "How long the token authenticates; 0 until revoked (default: "
                + "the broker's security.token-ttl-hours).")
        Long ttlHours;

        @Override
        public Integer call() {
            return admin.send("POST", "/admin/users/" + name + "/tokens", ttlHours == null ? null
                    : JSON.createObjectNode().put("ttlSeconds", Math.multiplyExact(ttlHours, 3600L)));
        }
    }

    @Command(name = "tokens", description = "Lists a user's bearer tokens: ids, issue and expiry times, never a "
            + "token.")
    static final class Tokens implements Callable<Integer> {
        @ParentCommand
        AdminCommand admin;

        @Parameters(index = "0", description = "The user name.")
        String name;

        @Override
        public Integer call() {
            return admin.send("GET", "/admin/users/" + name + "/tokens", null);
        }
    }

    @Command(name = "revoke-token", description = "Revokes one of a user's bearer tokens by its id (see tokens).")
    static final class RevokeToken implements Callable<Integer> {
        @ParentCommand
        AdminCommand admin;

        @Parameters(index = "0", description = "The user name.")
        String name;

        @Parameters(index = "1", description = "The token's id.")
        String id;

        @Override
        public Integer call() {
            return admin.send("DELETE", "/admin/users/" + name + "/tokens/" + id, null);
        }
    }

    @Command(name = "quotas", description = "Lists every namespace's quota.")
    static final class Quotas implements Callable<Integer> {
        @ParentCommand
        AdminCommand admin;

        @Override
        public Integer call() {
            return admin.send("GET", "/admin/quotas", null);
        }
    }

    @Command(name = "quota", description = "Sets a namespace's quota; 0 (the default) is unlimited.")
    static final class SetQuota implements Callable<Integer> {
        @ParentCommand
        AdminCommand admin;

        @Parameters(index = "0", description = "The namespace.")
        String namespace;

        @Option(names = "--messages-per-second", defaultValue = "0")
        long messagesPerSecond;

        @Option(names = "--bytes-per-second", defaultValue = "0")
        long bytesPerSecond;

        @Option(names = "--max-connections", defaultValue = "0")
        int maxConnections;

        @Override
        public Integer call() {
            return admin.send("PUT", "/admin/quotas/" + namespace, JSON.createObjectNode()
                    .put("messagesPerSecond", messagesPerSecond).put("bytesPerSecond", bytesPerSecond)
                    .put("maxConnections", maxConnections));
        }
    }
}
