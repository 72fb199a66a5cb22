package io.junction.broker.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.spi.Endpoint;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class HealthStateTest {

    @Test
    void shouldSayNothingAboutWritesOnASingleNode() {
        final HealthState health = new HealthState();
        health.up(List.of());
        assertThat(health.toJson()).isEqualTo("{\"status\":\"UP\",\"listeners\":{}}");
    }

    @Test
    void shouldTellWhetherAClusterNodeTakesWrites() {
        final HealthState health = new HealthState();
        final AtomicBoolean leads = new AtomicBoolean();
        health.writable(leads::get);
        health.up(List.of());
        assertThat(health.toJson()).isEqualTo("{\"status\":\"UP\",\"acceptsWrites\":false,\"listeners\":{}}");
        leads.set(true);
        assertThat(health.toJson()).contains("\"acceptsWrites\":true");
        health.stopping();
        assertThat(health.toJson()).contains("\"acceptsWrites\":false");
    }

    @Test
    void shouldTellWhetherAProxyReachesItsLeader() {
        final HealthState health = new HealthState();
        final AtomicBoolean reaches = new AtomicBoolean(true);
        health.reachesLeader(reaches::get);
        health.up(List.of());
        assertThat(health.toJson()).isEqualTo("{\"status\":\"UP\",\"reachesLeader\":true,\"listeners\":{}}");
        reaches.set(false);
        assertThat(health.toJson()).contains("\"reachesLeader\":false");
    }

    @Test
    void shouldEscapeListenerNamesAndAddresses() throws Exception {
        final HealthState health = new HealthState();
        health.up(List.of(new Endpoint("we\"ird", "tcp://host\\name:1\n")));
        final JsonNode json = JsonReplies.JSON.readTree(health.toJson());
        assertThat(json.get("listeners").get("we\"ird").asText()).isEqualTo("tcp://host\\name:1\n");
    }
}
