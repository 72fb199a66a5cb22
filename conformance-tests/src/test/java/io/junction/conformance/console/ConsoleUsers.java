package io.junction.conformance.console;

import io.junction.conformance.support.DataDirSeed;
import io.junction.tenancy.AclRule;
import io.junction.tenancy.SecretCipher;
import io.junction.tenancy.UserDirectory;
import java.nio.file.Path;
import java.util.List;

/**
 * The users of a secured broker for the console tests, seeded before it starts: {@code root} (super user, password
 * {@code root-pw}) and {@code dave} (every right on topics and groups, not a super user, password {@code dave-pw}).
 */
final class ConsoleUsers implements DataDirSeed {

    static final String KEY = "console secret key";
    static final String ON = "security.enabled=true";
    static final String KEY_SETTING = "security.secret-key=" + KEY;

    @Override
    public void write(final Path dataDir) {
        final UserDirectory users = UserDirectory.open(dataDir.resolve("security/users.json"), new SecretCipher(KEY));
        users.putUser("root", "default", true, true, "root-pw", "root-secret");
        users.putUser("dave", "default", false, true, "dave-pw", "dave-secret");
        users.setRules("dave", List.of(AclRule.parse("*", List.of("ALL"), "ALLOW")));
    }
}
