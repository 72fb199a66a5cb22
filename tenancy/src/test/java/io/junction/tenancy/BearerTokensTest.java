package io.junction.tenancy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
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
        final String first = users.issueToken("alice", Duration.ZERO);
        final String second = users.issueToken("alice", Duration.ZERO);
        final List<IssuedToken> listed = users.tokens("alice");

        assertThat(listed).hasSize(2);
        assertThat(listed).extracting(IssuedToken::id)
                .containsExactlyInAnyOrder(idOf(first), idOf(second))
                .allSatisfy(id -> assertThat(id).hasSize(16).isNotIn(first, second));
        assertThat(listed).allSatisfy(t -> assertThat(t.term().issuedAt()).isBetween(before, System.currentTimeMillis()));
        assertThat(listed.get(0).term().issuedAt()).isLessThanOrEqualTo(listed.get(1).term().issuedAt());
    }

    @Test
    void shouldRefuseARevokedTokenAndKeepTheOthers() {
        final String kept = users.issueToken("alice", Duration.ZERO);
        final String revoked = users.issueToken("alice", Duration.ZERO);

        assertThat(users.revokeToken("alice", idOf(revoked))).isTrue();

        assertThat(users.holderOfToken(revoked)).isEmpty();
        assertThat(users.holderOfToken(kept)).map(h -> h.user().name()).contains("alice");
        assertThat(users.tokens("alice")).extracting(IssuedToken::id).containsExactly(idOf(kept));
        assertThat(users.revokeToken("alice", idOf(revoked))).as("already gone").isFalse();
        assertThatThrownBy(() -> users.revokeToken("nobody", idOf(kept)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no user nobody");
    }

    @Test
    void shouldKeepIssueTimesAndRevocationsAcrossARestart() {
        final String kept = users.issueToken("alice", Duration.ZERO);
        final String revoked = users.issueToken("alice", Duration.ZERO);
        users.revokeToken("alice", idOf(revoked));
        final List<IssuedToken> listed = users.tokens("alice");

        final UserDirectory reopened = UserDirectory.open(file, CIPHER);

        assertThat(reopened.tokens("alice")).isEqualTo(listed);
        assertThat(reopened.holderOfToken(kept)).map(h -> h.user().name()).contains("alice");
        assertThat(reopened.holderOfToken(revoked)).isEmpty();
    }

    @Test
    void shouldReadTokensWrittenBeforeIssueTimesWereKept() throws Exception {
        final String digest = PasswordHash.tokenDigest("jt_old-token");
        Files.writeString(file, """
                {"users": [{"name": "carol", "namespace": "default", "super": false, "enabled": true,
                            "tokenDigests": ["%s"], "acl": []}], "quotas": []}
                """.formatted(digest));

        final UserDirectory old = UserDirectory.open(file, CIPHER);

        assertThat(old.holderOfToken("jt_old-token")).map(h -> h.user().name()).contains("carol");
        assertThat(old.tokens("carol")).containsExactly(new IssuedToken(digest.substring(0, 16), new TokenTerm(0, 0)));
        assertThat(old.revokeToken("carol", digest.substring(0, 16))).isTrue();
        assertThat(UserDirectory.open(file, CIPHER).holderOfToken("jt_old-token")).isEmpty();
    }

    @Test
    void shouldKeepATokensTermAndDropExpiredTokensAtTheNextIssue() {
        final Instant start = Instant.parse("2026-12-06T12:00:00Z");
        final Instant[] now = {start};
        final Clock clock = new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(final ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now[0];
            }
        };
        final UserDirectory dated = UserDirectory.open(dir.resolve("dated.json"), CIPHER, clock);
        dated.putUser("alice", "acme", false, true, "alice-pw", null);
        final String lasting = dated.issueToken("alice", Duration.ZERO);
        final String brief = dated.issueToken("alice", Duration.ofMinutes(1));
        final String daily = dated.issueToken("alice", Duration.ofDays(1));

        assertThat(dated.holderOfToken(lasting).orElseThrow().term()).as("until revoked")
                .isEqualTo(new TokenTerm(start.toEpochMilli(), 0));
        assertThat(dated.holderOfToken(daily).orElseThrow().term()).isEqualTo(new TokenTerm(start.toEpochMilli(),
                start.plus(Duration.ofDays(1)).toEpochMilli()));
        assertThat(UserDirectory.open(dir.resolve("dated.json"), CIPHER, clock).tokens("alice"))
                .as("terms survive a restart").isEqualTo(dated.tokens("alice"));

        final TokenTerm minute = dated.holderOfToken(brief).orElseThrow().term();
        assertThat(minute.expired(minute.expiresAt() - 1)).isFalse();
        assertThat(minute.expired(minute.expiresAt())).isTrue();
        now[0] = start.plus(Duration.ofMinutes(1));
        assertThat(dated.tokens("alice")).as("listed until the next issue").hasSize(3);
        final String next = dated.issueToken("alice", Duration.ofHours(1));
        assertThat(dated.tokens("alice")).extracting(IssuedToken::id)
                .containsExactlyInAnyOrder(idOf(lasting), idOf(daily), idOf(next));
        assertThat(dated.holderOfToken(brief)).isEmpty();
        assertThatThrownBy(() -> dated.issueToken("alice", Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
    }

    @Test
    void shouldRefuseATokenBeyondTheCap() {
        for (int i = 0; i < UserDirectory.MAX_TOKENS; i++) {
            users.issueToken("alice", Duration.ZERO);
        }
        assertThatThrownBy(() -> users.issueToken("alice", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("revoke one first");
        assertThat(users.tokens("alice")).hasSize(UserDirectory.MAX_TOKENS);
    }

    private static String idOf(final String token) {
        return PasswordHash.tokenDigest(token).substring(0, 16);
    }
}
