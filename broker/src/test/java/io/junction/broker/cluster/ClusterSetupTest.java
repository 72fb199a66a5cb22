package io.junction.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.junction.broker.config.BrokerConfig;
import io.junction.broker.config.ConfigKeys;
import io.junction.broker.config.ConfigLoader;
import io.junction.broker.lifecycle.BrokerStartException;
import io.junction.cluster.ClusterSettings;
import io.junction.cluster.RaftLogLimits;
import io.junction.cluster.proxy.groups.StoreGroup;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The cluster keys: Raft log limits, {@code cluster.role} against the other keys, and the one-line refusals. */
class ClusterSetupTest {
    private static final Map<String, String> NODE = Map.of("cluster.node-id", "n1",
            "cluster.members", "n1@127.0.0.1:9870,n2@127.0.0.1:9871,n3@127.0.0.1:9872");

    private final ConfigLoader loader = new ConfigLoader(ConfigKeys.broker());

    @Test
    void shouldDefaultToTheRaftLogLimitsTheClusterModuleDocuments() throws Exception {
        final ClusterSettings settings = ClusterSetup.settings(config(Map.of()));

        assertThat(settings.raftLog()).isEqualTo(RaftLogLimits.DEFAULT);
    }

    @Test
    void shouldMapTheRaftLogLimitKeys() throws Exception {
        final ClusterSettings settings = ClusterSetup.settings(config(Map.of(
                "cluster.snapshot-interval-entries", "32",
                "cluster.log-keep-entries", "8",
                "cluster.log-segment-size", "1m")));

        assertThat(settings.raftLog()).isEqualTo(new RaftLogLimits(32, 8, 1 << 20));
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "cluster.snapshot-interval-entries; 0; cluster.snapshot-interval-entries must be 1 to",
            "cluster.log-segment-size; 8k; cluster.log-segment-size must be at least 16k"})
    void shouldRefuseRaftLogLimitsOutOfRangeNamingTheKey(final String key, final String value, final String reason)
            throws Exception {
        final BrokerConfig config = config(Map.of(key, value));

        assertThatThrownBy(() -> ClusterSetup.settings(config)).isInstanceOf(BrokerStartException.class)
                .hasMessageStartingWith("cluster: " + reason);
    }

    @Test
    void shouldIgnoreTheClusterKeysOnASingleNode() throws Exception {
        final BrokerConfig config = loader.load(null, Path.of("/tmp/junction-test"),
                Map.of("cluster.snapshot-interval-entries", "0"));

        assertThat(ClusterSetup.settings(config)).isNull();
    }

    private BrokerConfig config(final Map<String, String> overrides) throws Exception {
        final Map<String, String> all = new HashMap<>(NODE);
        all.putAll(overrides);
        return loader.load(null, Path.of("/tmp/junction-test"), all);
    }

    @Test
    void shouldRunASingleNodeByDefault() throws Exception {
        assertThat(ClusterSetup.role(plain(Map.of()))).isEqualTo(NodeRole.ALL);
        assertThat(ClusterSetup.settings(plain(Map.of()))).isNull();
        assertThat(NodeRole.ALL.servesClients()).isTrue();
        assertThat(NodeRole.STORE.servesClients()).isFalse();
    }

    @Test
    void shouldTakeEachRoleWithTheKeysItNeeds() throws Exception {
        assertThat(ClusterSetup.role(plain(Map.of("cluster.role", "STORE", "cluster.node-id", "n1",
                "cluster.members", "n1@127.0.0.1:9870"))))
                .isEqualTo(NodeRole.STORE);
        final BrokerConfig proxy = plain(Map.of("cluster.role", "proxy", "cluster.store-contracts",
                " 10.0.0.1:9801, 10.0.0.2:9801 ,"));
        assertThat(ClusterSetup.role(proxy)).isEqualTo(NodeRole.PROXY);
        assertThat(ClusterSetup.storeContracts(proxy)).isEqualTo(List.of("10.0.0.1:9801", "10.0.0.2:9801"));
    }

    @Test
    void shouldRefuseRolesWhoseKeysDoNotFit() throws Exception {
        assertThatThrownBy(() -> ClusterSetup.role(plain(Map.of("cluster.role", "replica"))))
                .isInstanceOf(BrokerStartException.class).hasMessage("cluster.role: all, store or proxy, not 'replica'");
        assertThatThrownBy(() -> ClusterSetup.role(plain(Map.of("cluster.role", "proxy"))))
                .isInstanceOf(BrokerStartException.class).hasMessageContaining("needs cluster.store-contracts");
        assertThatThrownBy(() -> ClusterSetup.role(plain(Map.of("cluster.role", "proxy", "cluster.node-id", "n1",
                "cluster.store-contracts", "10.0.0.1:9801"))))
                .isInstanceOf(BrokerStartException.class).hasMessageContaining("leave cluster.node-id empty");
        assertThatThrownBy(() -> ClusterSetup.role(plain(Map.of("cluster.role", "store"))))
                .isInstanceOf(BrokerStartException.class).hasMessageContaining("needs cluster.node-id");
        assertThatThrownBy(() -> ClusterSetup.role(plain(Map.of("cluster.store-contracts", "10.0.0.1:9801"))))
                .isInstanceOf(BrokerStartException.class).hasMessageContaining("are for cluster.role=proxy");
    }

    @Test
    void shouldReadStoreGroupsFirstOneTheMetadataGroup() throws Exception {
        final BrokerConfig groups = plain(Map.of("cluster.role", "proxy", "cluster.store-groups",
                "meta=10.0.0.1:9801,10.0.0.2:9801; data-2=10.0.1.1:9801"));
        assertThat(ClusterSetup.role(groups)).isEqualTo(NodeRole.PROXY);
        assertThat(ClusterSetup.storeGroups(groups)).containsExactly(
                new StoreGroup("meta", List.of("10.0.0.1:9801", "10.0.0.2:9801")),
                new StoreGroup("data-2", List.of("10.0.1.1:9801")));
        final BrokerConfig one = plain(Map.of("cluster.role", "proxy", "cluster.store-contracts", "10.0.0.1:9801"));
        assertThat(ClusterSetup.storeGroups(one)).containsExactly(new StoreGroup("g1", List.of("10.0.0.1:9801")));
    }

    @Test
    void shouldRefuseMalformedStoreGroups() throws Exception {
        for (Map.Entry<String, String> bad : Map.of(
                "Meta=10.0.0.1:9801", "is not [a-z0-9-]+",
                "g1=10.0.0.1:9801;g1=10.0.0.2:9801", "listed twice",
                "g1=", "lists no contract address",
                "10.0.0.1:9801", "is not name=host:port",
                "g1=10.0.0.1", "'10.0.0.1' is not host:port").entrySet()) {
            assertThatThrownBy(() -> ClusterSetup.storeGroups(plain(Map.of("cluster.role", "proxy",
                    "cluster.store-groups", bad.getKey()))))
                    .isInstanceOf(BrokerStartException.class)
                    .hasMessageStartingWith("cluster.store-groups: ").hasMessageContaining(bad.getValue());
        }
        assertThatThrownBy(() -> ClusterSetup.role(plain(Map.of("cluster.role", "proxy", "cluster.store-groups",
                "g1=10.0.0.1:9801", "cluster.store-contracts", "10.0.0.1:9801"))))
                .isInstanceOf(BrokerStartException.class).hasMessageContaining("set one");
        assertThatThrownBy(() -> ClusterSetup.role(plain(Map.of("cluster.store-groups", "g1=10.0.0.1:9801"))))
                .isInstanceOf(BrokerStartException.class).hasMessageContaining("are for cluster.role=proxy");
    }

    /** Exactly {@code settings}, without the node keys {@link #config} adds. */
    private BrokerConfig plain(final Map<String, String> settings) throws Exception {
        return loader.load(null, Path.of("/tmp/junction-test"), settings);
    }
}
