package io.junction.conformance.security;

import io.junction.conformance.support.DataDirSeed;
import io.junction.tenancy.AclRule;
import io.junction.tenancy.SecretCipher;
import io.junction.tenancy.UserDirectory;
import java.nio.file.Path;
import java.util.List;

/**
 * The fixed cast of a secured broker, seeded into its user directory before it starts ({@code @WithBroker(settings =
 * {SecurityCast.ON, SecurityCast.KEY_SETTING, ...}, seed = SecurityCast.class)}):
 * <ul>
 * <li>{@code root}: super user of the default namespace;</li>
 * <li>{@code alice} and {@code andy}: tenant {@code acme}, every action on every topic and group;</li>
 * <li>{@code bob}: tenant {@code globex}, the same rights in his namespace;</li>
 * <li>{@code carol}: tenant {@code acme}, may publish and subscribe to topics, except subscribe to {@code secret}
 * (a deny overriding the allow).</li>
 * </ul>
 * Passwords are {@code <name>-pw}, signing secrets {@code <name>-secret}.
 */
final class SecurityCast implements DataDirSeed {

    static final String KEY = "conformance secret key";
    /** The settings every secured broker here runs with; the MQTT time-out is short for refused clients. */
    static final String ON = "security.enabled=true";
    static final String KEY_SETTING = "security.secret-key=" + KEY;
    static final String MQTT_TIMEOUT = "mqtt.connect-timeout-ms=2000";

    @Override
    public void write(final Path dataDir) {
        final UserDirectory users = UserDirectory.open(dataDir.resolve("security/users.json"), new SecretCipher(KEY));
        users.putUser("root", "default", true, true, "root-pw", "root-secret");
        final List<AclRule> everything = List.of(AclRule.parse("*", List.of("ALL"), "ALLOW"));
        for (final String[] u : new String[][] {{"alice", "acme"}, {"andy", "acme"}, {"bob", "globex"}}) {
            users.putUser(u[0], u[1], false, true, u[0] + "-pw", u[0] + "-secret");
            users.setRules(u[0], everything);
        }
        users.putUser("carol", "acme", false, true, "carol-pw", "carol-secret");
        users.setRules("carol", List.of(AclRule.parse("Topic:*", List.of("PUB", "SUB"), "ALLOW"),
                AclRule.parse("Group:*", List.of("ALL"), "ALLOW"),
                AclRule.parse("Topic:secret", List.of("SUB"), "DENY")));
    }
}
