package io.junction.tenancy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issuing, listing and revoking bearer tokens in the {@link UserDirectory}, and what its file keeps of them. */
class BearerTokensTest {

    private static final SecretCipher CIPHER = new SecretCipher("test key");

    @TempDir
    Path dir;

    private Path file;
    private UserDirectory users;

    @BeforeEach
    void setUp() {
        file = dir.resolve("users.json");
        users = UserDirectory.open(file, CIPHER);
        users.putUser("alice", "acme", false, true, "alice-pw", null);
    }

    @Test
    void shouldListIssuedTokensByIdAndTimeButNeverTheToken() {
        final long before = System.currentTimeMillis();
        final String first = users.issueToken("alice");
        final String second = users.issueToken("alice");
        final List<IssuedToken> listed = users.tokens("alice");

        assertThat(listed).hasSize(2);
        assertThat(listed).extracting(IssuedToken::id)
                .containsExactlyInAnyOrder(idOf(first), idOf(second))
                .allSatisfy(id -> assertThat(id).hasSize(16).isNotIn(first, second));
        assertThat(listed).allSatisfy(t -> assertThat(t.issuedAt()).isBetween(before, System.currentTimeMillis()));
        assertThat(listed.get(0).issuedAt()).isLessThanOrEqualTo(listed.get(1).issuedAt());
    }

    @Test
    void shouldRefuseARevokedTokenAndKeepTheOthers() {
        final String kept = users.issueToken("alice");
        final String revoked = users.issueToken("alice");

        assertThat(users.revokeToken("alice", idOf(revoked))).isTrue();

        assertThat(users.userOfToken(revoked)).isEmpty();
        assertThat(users.userOfToken(kept)).map(User::name).contains("alice");
        assertThat(users.tokens("alice")).extracting(IssuedToken::id).containsExactly(idOf(kept));
        assertThat(users.revokeToken("alice", idOf(revoked))).as("already gone").isFalse();
        assertThatThrownBy(() -> users.revokeToken("nobody", idOf(kept)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no user nobody");
    }

    @Test
    void shouldKeepIssueTimesAndRevocationsAcrossARestart() {
        final String kept = users.issueToken("alice");
        final String revoked = users.issueToken("alice");
        users.revokeToken("alice", idOf(revoked));
        final List<IssuedToken> listed = users.tokens("alice");

        final UserDirectory reopened = UserDirectory.open(file, CIPHER);

        assertThat(reopened.tokens("alice")).isEqualTo(listed);
        assertThat(reopened.userOfToken(kept)).map(User::name).contains("alice");
        assertThat(reopened.userOfToken(revoked)).isEmpty();
    }

    @Test
    void shouldReadTokensWrittenBeforeIssueTimesWereKept() throws Exception {
        final String digest = PasswordHash.tokenDigest("jt_old-token");
        Files.writeString(file, """
                {"users": [{"name": "carol", "namespace": "default", "super": false, "enabled": true,
                            "tokenDigests": ["%s"], "acl": []}], "quotas": []}
                """.formatted(digest));

        final UserDirectory old = UserDirectory.open(file, CIPHER);

        assertThat(old.userOfToken("jt_old-token")).map(User::name).contains("carol");
        assertThat(old.tokens("carol")).containsExactly(new IssuedToken(digest.substring(0, 16), 0));
        assertThat(old.revokeToken("carol", digest.substring(0, 16))).isTrue();
        assertThat(UserDirectory.open(file, CIPHER).userOfToken("jt_old-token")).isEmpty();
    }

    @Test
    void shouldRefuseATokenBeyondTheCap() {
        for (int i = 0; i < UserDirectory.MAX_TOKENS; i++) {
            users.issueToken("alice");
        }
        assertThatThrownBy(() -> users.issueToken("alice")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("revoke one first");
        assertThat(users.tokens("alice")).hasSize(UserDirectory.MAX_TOKENS);
    }

    private static String idOf(final String token) {
        return PasswordHash.tokenDigest(token).substring(0, 16);
    }
}
