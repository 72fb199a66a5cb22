package io.junction.broker.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.cluster.proxy.ProxyStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A proxy's {@code GET /cluster}: the field names operators' scripts read. */
class ProxyStatusJsonTest {

    @Test
    void shouldRenderTheLeaderAndTheStoreNodesAProxyReaches() throws Exception {
        final ProxyStatus status = new ProxyStatus("PROXY", "n3", "127.0.0.1:9803", true, 120,
                List.of(new ProxyStatus.Store("127.0.0.1:9801", -1), new ProxyStatus.Store("127.0.0.1:9803", 40)));
        final JsonNode json = JsonReplies.JSON.readTree(JsonReplies.JSON.valueToTree(status).toString());
        assertThat(json.get("role").asText()).isEqualTo("PROXY");
        assertThat(json.get("leader").asText()).isEqualTo("n3");
        assertThat(json.get("leaderContract").asText()).isEqualTo("127.0.0.1:9803");
        assertThat(json.get("reachesLeader").asBoolean()).isTrue();
        assertThat(json.get("mirrorAgeMs").asLong()).isEqualTo(120);
        assertThat(json.get("stores")).hasSize(2);
        assertThat(json.get("stores").get(1).get("contract").asText()).isEqualTo("127.0.0.1:9803");
        assertThat(json.get("stores").get(1).get("lastAnswerMs").asLong()).isEqualTo(40);
    }
}
