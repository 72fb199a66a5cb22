package io.junction.broker.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.cluster.ClusterStatus;
import io.junction.cluster.ClusterStatus.Member;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterPanelTest {

    private static final long SILENT_AFTER_MS = 1000;

    @Test
    void shouldTellEachMembersStateAsTheLeaderSeesIt() {
        final ClusterStatus status = new ClusterStatus("n1", "LEADER", "n1", 3, 120, 120, 4096, true, List.of(
                new Member("n1", "127.0.0.1:1", 120, -1, 0, "127.0.0.1:11"),
                new Member("n2", "127.0.0.1:2", 120, 150, 0, "127.0.0.1:12"),
                new Member("n3", "127.0.0.1:3", 100, 400, 20, "127.0.0.1:13"),
                new Member("n4", "127.0.0.1:4", 90, 1001, 30, null),
                new Member("n5", "127.0.0.1:5", -1, -1, -1, null)));

        final JsonNode panel = ClusterPanel.describe(status, SILENT_AFTER_MS);

        assertThat(states(panel)).containsExactly("leader", "in sync", "behind", "unreachable", "unreachable");
        assertThat(panel.path("silentAfterMs").asLong()).isEqualTo(SILENT_AFTER_MS);
        assertThat(panel.path("leader").asText()).isEqualTo("n1");
        assertThat(panel.path("term").asLong()).isEqualTo(3);
        assertThat(panel.path("members").get(2).path("lagEntries").asLong()).isEqualTo(20);
        assertThat(panel.path("members").get(3).path("lastContactMs").asLong()).isEqualTo(1001);
    }

    @Test
    void shouldKnowOnlyTheLeaderFromAFollower() {
        final ClusterStatus status = new ClusterStatus("n2", "FOLLOWER", "n1", 3, 120, 120, 4096, false, List.of(
                new Member("n1", "127.0.0.1:1", -1, -1, -1, null),
                new Member("n2", "127.0.0.1:2", 120, -1, -1, null),
                new Member("n3", "127.0.0.1:3", -1, -1, -1, null)));

        assertThat(states(ClusterPanel.describe(status, SILENT_AFTER_MS)))
                .containsExactly("leader", "unknown", "unknown");
    }

    @Test
    void shouldShowNoLeaderDuringAnElection() {
        final ClusterStatus status = new ClusterStatus("n2", "CANDIDATE", null, 4, 120, 120, 4096, false, List.of(
                new Member("n1", "127.0.0.1:1", -1, -1, -1, null),
                new Member("n2", "127.0.0.1:2", 120, -1, -1, null)));

        final JsonNode panel = ClusterPanel.describe(status, SILENT_AFTER_MS);

        assertThat(states(panel)).containsExactly("unknown", "unknown");
        assertThat(panel.path("leader").isNull()).isTrue();
    }

    private static List<String> states(final JsonNode panel) {
        final List<String> states = new ArrayList<>();
        panel.path("members").forEach(m -> states.add(m.path("state").asText()));
        return states;
    }
}
