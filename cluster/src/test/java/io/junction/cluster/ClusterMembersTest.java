package io.junction.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterMembersTest {

    @Test
    void shouldParseMembersInOrder() {
        assertThat(ClusterMembers.parse("n1@127.0.0.1:9001, n2@host-b:9002,n3@[::1]:9003"))
                .containsExactly(new ClusterMember("n1", "127.0.0.1", 9001), new ClusterMember("n2", "host-b", 9002),
                        new ClusterMember("n3", "[::1]", 9003));
    }

    @Test
    void shouldRefuseMalformedMembers() {
        for (String bad : List.of("", "n1", "n1@host", "@host:1", "n1@host:0", "n1@host:x", "n 1@h:1",
                "n1@h:1,n1@g:2", "n1@h:1,n2@h:1", "n1@:1")) {
            assertThatThrownBy(() -> ClusterMembers.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void shouldRefuseANodeOutsideTheMembers(@TempDir final Path dir) {
        assertThatThrownBy(() -> new ClusterSettings("n4", ClusterMembers.parse("n1@h:1,n2@h:2"),
                Duration.ofSeconds(1), dir)).hasMessageContaining("n4 is not among cluster.members");
    }

    @Test
    void shouldRefuseADataDirectoryOfAnotherClusterOrNode(@TempDir final Path dir) {
        final List<ClusterMember> members = ClusterMembers.parse("n1@h:1,n2@h:2,n3@h:3");
        ClusterIdentity.claim(new ClusterSettings("n1", members, Duration.ofSeconds(1), dir));
        // Same members in another order: the same cluster.
        ClusterIdentity.claim(new ClusterSettings("n1", ClusterMembers.parse("n3@h:3,n1@h:1,n2@h:2"),
                Duration.ofSeconds(1), dir));
        assertThatThrownBy(() -> ClusterIdentity.claim(new ClusterSettings("n2", members, Duration.ofSeconds(1),
                dir))).isInstanceOf(ClusterStartException.class).hasMessageContaining("belongs to node n1");
        assertThatThrownBy(() -> ClusterIdentity.claim(new ClusterSettings("n1",
                ClusterMembers.parse("n1@h:1,n2@h:2,n3@h:4"), Duration.ofSeconds(1), dir)))
                .isInstanceOf(ClusterStartException.class).hasMessageContaining("belongs to another cluster");
    }
}
