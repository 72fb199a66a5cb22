package io.junction.tenancy;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A user as the broker stores it: no secret in clear.
 *
 * @param name         the user name (also the access key of the signature schemes)
 * @param namespace    the tenant the user acts in
 * @param superUser    administers every namespace; no policy applies
 * @param enabled      a disabled user cannot authenticate
 * @param passwordHash {@link PasswordHash} of the password (MQTT, AMQP PLAIN, HTTP Basic), or null for none
 * @param sealedSecret the signing secret (Remoting and gRPC) sealed by {@link SecretCipher}, or null for none
 * @param tokens       the user's bearer tokens: {@link PasswordHash#tokenDigest digest} to when it was issued and
 *                     until when it authenticates
 * @param rules        the user's policy
 */
public record User(String name, String namespace, boolean superUser, boolean enabled, String passwordHash,
                   String sealedSecret, Map<String, TokenTerm> tokens, List<AclRule> rules) {

    public User {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a user needs a name");
        }
        if (!Namespaces.valid(namespace)) {
            throw new IllegalArgumentException("a namespace is 1 to 64 letters, digits, _ or -: " + namespace);
        }
        tokens = tokens == null ? Map.of() : Map.copyOf(tokens);
        rules = rules == null ? List.of() : List.copyOf(rules);
    }

    /** The digests of the user's bearer tokens. */
    public Set<String> tokenDigests() {
        return tokens.keySet();
    }

    public Principal principal() {
        return new Principal(name, namespace, superUser);
    }

    public User withRules(final List<AclRule> newRules) {
        return new User(name, namespace, superUser, enabled, passwordHash, sealedSecret, tokens, newRules);
    }

    public User withTokens(final Map<String, TokenTerm> newTokens) {
        return new User(name, namespace, superUser, enabled, passwordHash, sealedSecret, newTokens, rules);
    }
}
