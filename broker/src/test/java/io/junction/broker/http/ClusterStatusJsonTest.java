package io.junction.broker.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.cluster.ClusterStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code GET /cluster} renders the ClusterStatus record as it is: the field names operators' scripts read. */
class ClusterStatusJsonTest {

    @Test
    void shouldRenderEveryFieldOperatorsScriptAgainst() throws Exception {
        final ClusterStatus status = new ClusterStatus("n1", "LEADER", "n1", 3, 42, 41, 4096, true,
                List.of(new ClusterStatus.Member("n1", "127.0.0.1:9001", 42, -1, 0, "127.0.0.1:9101"),
                        new ClusterStatus.Member("n\"2", "127.0.0.1:9002", 40, 12, 2, null)));
        // Through text, as a client reads it.
        final JsonNode json = JsonReplies.JSON.readTree(JsonReplies.JSON.valueToTree(status).toString());
        assertThat(json.get("node").asText()).isEqualTo("n1");
        assertThat(json.get("role").asText()).isEqualTo("LEADER");
        assertThat(json.get("leader").asText()).isEqualTo("n1");
        assertThat(json.get("term").asLong()).isEqualTo(3);
        assertThat(json.get("commitIndex").asLong()).isEqualTo(42);
        assertThat(json.get("appliedIndex").asLong()).isEqualTo(41);
        assertThat(json.get("appliedLogEnd").asLong()).isEqualTo(4096);
        assertThat(json.get("acceptsWrites").asBoolean()).isTrue();
        assertThat(json.get("members")).hasSize(2);
        assertThat(json.get("members").get(0).get("contract").asText()).isEqualTo("127.0.0.1:9101");
        assertThat(json.get("members").get(1).get("id").asText()).isEqualTo("n\"2");
        assertThat(json.get("members").get(1).get("matchIndex").asLong()).isEqualTo(40);
        assertThat(json.get("members").get(1).get("lastContactMs").asLong()).isEqualTo(12);
        assertThat(json.get("members").get(1).get("lagEntries").asLong()).isEqualTo(2);
        assertThat(json.get("members").get(1).get("contract").isNull()).isTrue();
    }

    @Test
    void shouldRenderAnUnknownLeaderAsNull() throws Exception {
        final ClusterStatus status = new ClusterStatus("n2", "CANDIDATE", null, 4, 42, 42, 4096, false, List.of());
        final JsonNode json = JsonReplies.JSON.readTree(JsonReplies.JSON.valueToTree(status).toString());
        assertThat(json.get("leader").isNull()).isTrue();
        assertThat(json.get("acceptsWrites").asBoolean()).isFalse();
    }
}
