package io.junction.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.broker.config.BrokerConfig;
import io.junction.broker.config.ConfigKeys;
import io.junction.broker.config.ConfigLoader;
import io.junction.broker.lifecycle.BrokerStartException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code cluster.role} against the other cluster keys: what runs, and the one-line refusals. */
class ClusterSetupTest {
    private final ConfigLoader loader = new ConfigLoader(ConfigKeys.broker());

    private BrokerConfig config(final Map<String, String> settings) throws Exception {
        return loader.load(null, Path.of("/tmp/junction-test"), settings);
    }

    @Test
    void shouldRunASingleNodeByDefault() throws Exception {
        assertThat(ClusterSetup.role(config(Map.of()))).isEqualTo(NodeRole.ALL);
        assertThat(ClusterSetup.settings(config(Map.of()))).isNull();
        assertThat(NodeRole.ALL.servesClients()).isTrue();
        assertThat(NodeRole.STORE.servesClients()).isFalse();
    }

    @Test
    void shouldTakeEachRoleWithTheKeysItNeeds() throws Exception {
        assertThat(ClusterSetup.role(config(Map.of("cluster.role", "STORE", "cluster.node-id", "n1",
                "cluster.members", "n1@127.0.0.1:9870"))))
                .isEqualTo(NodeRole.STORE);
        final BrokerConfig proxy = config(Map.of("cluster.role", "proxy", "cluster.store-contracts",
                " 10.0.0.1:9801, 10.0.0.2:9801 ,"));
        assertThat(ClusterSetup.role(proxy)).isEqualTo(NodeRole.PROXY);
        assertThat(ClusterSetup.storeContracts(proxy)).isEqualTo(List.of("10.0.0.1:9801", "10.0.0.2:9801"));
    }

    @Test
    void shouldRefuseRolesWhoseKeysDoNotFit() throws Exception {
        assertThatThrownBy(() -> ClusterSetup.role(config(Map.of("cluster.role", "replica"))))
                .isInstanceOf(BrokerStartException.class).hasMessage("cluster.role: all, store or proxy, not 'replica'");
        assertThatThrownBy(() -> ClusterSetup.role(config(Map.of("cluster.role", "proxy"))))
                .isInstanceOf(BrokerStartException.class).hasMessageContaining("needs cluster.store-contracts");
        assertThatThrownBy(() -> ClusterSetup.role(config(Map.of("cluster.role", "proxy", "cluster.node-id", "n1",
                "cluster.store-contracts", "10.0.0.1:9801"))))
                .isInstanceOf(BrokerStartException.class).hasMessageContaining("leave cluster.node-id empty");
        assertThatThrownBy(() -> ClusterSetup.role(config(Map.of("cluster.role", "store"))))
                .isInstanceOf(BrokerStartException.class).hasMessageContaining("needs cluster.node-id");
        assertThatThrownBy(() -> ClusterSetup.role(config(Map.of("cluster.store-contracts", "10.0.0.1:9801"))))
                .isInstanceOf(BrokerStartException.class).hasMessageContaining("is for cluster.role=proxy");
    }
}
