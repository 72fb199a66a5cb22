package io.junction.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The policy version, {@link Grants} and {@link PolicyWatcher}s: a change of the rules reaches what is held open. */
class RuleChangesTest {

    private static final List<AclRule> PUB_AND_SUB = List.of(
            AclRule.parse("Topic:*", List.of("PUB", "SUB"), "ALLOW"));
    private static final List<AclRule> SUB_ONLY = List.of(AclRule.parse("Topic:*", List.of("SUB"), "ALLOW"));

    @TempDir
    Path dir;

    private final List<String> denials = new ArrayList<>();
    private UserDirectory users;
    private AccessControl access;
    private final Principal alice = new Principal("alice", "acme");

    @BeforeEach
    void setUp() {
        users = UserDirectory.open(dir.resolve("users.json"), new SecretCipher("test key"));
        users.putUser("alice", "acme", false, true, "alice-pw", null);
        users.setRules("alice", PUB_AND_SUB);
        users.putUser("bob", "globex", false, true, "bob-pw", null);
        final SecurePolicy policy = new SecurePolicy(users, new FailureThrottle(5, 60_000, new AtomicLong()::get),
                new SecurityEvents() {
                    @Override
                    public void authenticationFailed(final String protocol, final String reason) {
                    }

                    @Override
                    public void denied(final ResourceKind kind, final Action action) {
                        denials.add(kind + ":" + action);
                    }
                }, Runnable::run, Clock.systemUTC(), Duration.ofMinutes(15));
        access = AccessControl.secured(policy, users, SecurityEvents.NONE);
    }

    @Test
    void shouldMoveTheVersionOnEveryChangeAndNeverWithAuthOff() {
        final long before = access.policyVersion();
        users.setRules("alice", SUB_ONLY);
        users.setQuota("acme", new Quota(10, 0, 0));
        assertThat(access.policyVersion()).isEqualTo(before + 2);
        assertThat(AccessControl.open().policyVersion()).isZero();
    }

    @Test
    void shouldDecideAgainOnlyAfterTheRulesChanged() {
        final Grants pub = access.grants(alice, ResourceKind.TOPIC, Action.PUB);
        assertThat(pub.allows("acme%orders")).isTrue();
        users.setRules("alice", SUB_ONLY);
        assertThat(pub.allows("acme%orders")).as("the very next ask after the change").isFalse();
        assertThat(pub.allows("acme%orders")).as("a denial is not remembered").isFalse();
        assertThat(denials).containsExactly("TOPIC:PUB", "TOPIC:PUB");
        users.setRules("alice", PUB_AND_SUB);
        assertThat(pub.allows("acme%orders")).as("restored").isTrue();
        assertThat(pub.allows("globex%orders")).as("never another tenant's").isFalse();
    }

    @Test
    void shouldForgetADeletedUsersGrants() {
        final Grants sub = access.grants(alice, ResourceKind.TOPIC, Action.SUB);
        assertThat(sub.allows("acme%orders")).isTrue();
        users.deleteUser("alice");
        assertThat(sub.allows("acme%orders")).isFalse();
    }

    @Test
    void shouldTellWatchersOfTheirOwnUsersChangesAndRevokeOnce() {
        final List<String> heard = new ArrayList<>();
        final PolicyWatch watch = access.watch(alice, recorder("alice", heard));
        access.watch(new Principal("bob", "globex"), recorder("bob", heard));
        users.setRules("alice", SUB_ONLY);
        users.putUser("alice", "acme", false, true, "new-pw", null);
        assertThat(heard).containsExactly("alice:changed", "alice:changed");
        heard.clear();
        users.putUser("alice", "acme", false, false, null, null); // disabled
        users.putUser("alice", "acme", false, true, null, null);
        users.setRules("alice", PUB_AND_SUB);
        assertThat(heard).as("revoked once; a revoked registration hears nothing more").containsExactly("alice:revoked");
        watch.cancel(); // after revocation: harmless
        heard.clear();
        users.putUser("carol", "initech", false, true, "carol-pw", null); // a new tenant: everyone is asked again
        assertThat(heard).containsExactly("bob:changed");
    }

    @Test
    void shouldRevokeAtOnceAPrincipalAlreadyGoneWhenItRegisters() {
        users.deleteUser("alice");
        final List<String> heard = new ArrayList<>();
        access.watch(alice, recorder("alice", heard));
        assertThat(heard).containsExactly("alice:revoked");
    }

    @Test
    void shouldRevokeAPrincipalMovedToAnotherNamespace() {
        final List<String> heard = new ArrayList<>();
        access.watch(alice, recorder("alice", heard));
        users.putUser("alice", "globex", false, true, null, null);
        assertThat(heard).containsExactly("alice:revoked");
    }

    @Test
    void shouldTellACancelledWatcherNothing() {
        final List<String> heard = new ArrayList<>();
        access.watch(alice, recorder("alice", heard)).cancel();
        users.deleteUser("alice");
        assertThat(heard).isEmpty();
        assertThat(AccessControl.open().watch(alice, recorder("x", heard))).isSameAs(PolicyWatch.NONE);
    }

    private static PolicyWatcher recorder(final String who, final List<String> heard) {
        return new PolicyWatcher() {
            @Override
            public void rulesChanged() {
                heard.add(who + ":changed");
            }

            @Override
            public void revoked() {
                heard.add(who + ":revoked");
            }
        };
    }
}
