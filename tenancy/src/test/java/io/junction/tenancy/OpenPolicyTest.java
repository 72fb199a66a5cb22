package io.junction.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class OpenPolicyTest {

    private final AccessControl access = AccessControl.open();

    @Test
    void shouldAuthenticateAnonymousClientInDefaultNamespace() {
        final AuthResult result = access.authenticate(
                Credentials.anonymous("mqtt", new InetSocketAddress("127.0.0.1", 40000))).join();

        assertThat(result.authenticated()).isTrue();
        assertThat(result.failureReason()).isEmpty();
        assertThat(result.principal()).contains(Principal.ANONYMOUS);
        assertThat(result.principal().orElseThrow().namespace()).isEqualTo(Principal.DEFAULT_NAMESPACE);
        assertThat(result.principal().orElseThrow().inDefaultNamespace()).isTrue();
    }

    @Test
    void shouldKeepPresentedUserNameButStayInDefaultNamespace() {
        final AuthResult result = access.authenticate(new Credentials("amqp", "alice", "secret", null)).join();

        assertThat(result.principal()).contains(new Principal("alice", "default"));
    }

    @Test
    void shouldAllowEveryActionOnEveryResourceKind() {
        final Principal alice = new Principal("alice", Principal.DEFAULT_NAMESPACE);
        for (final ResourceKind kind : ResourceKind.values()) {
            for (final Action action : Action.values()) {
                assertThat(access.authorize(Principal.ANONYMOUS, kind, "any-name", action)).isEqualTo(Decision.ALLOW);
                assertThat(access.allows(alice, kind, "any-name", action)).isTrue();
            }
        }
    }

    @Test
    void shouldNeverPrintTheSecret() {
        assertThat(new Credentials("http", "bob", "hunter2", null).toString()).doesNotContain("hunter2");
    }

    @Test
    void shouldReportFailureReason() {
        final AuthResult failure = AuthResult.failure("bad password");

        assertThat(failure.authenticated()).isFalse();
        assertThat(failure.principal()).isEmpty();
        assertThat(failure.failureReason()).contains("bad password");
    }
}
