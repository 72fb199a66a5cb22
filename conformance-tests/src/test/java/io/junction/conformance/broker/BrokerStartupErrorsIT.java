package io.junction.conformance.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.conformance.support.BrokerProcess;
import io.junction.conformance.support.FreePorts;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.assertj.core.api.AbstractStringAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/** Bad input never leaves a half-started broker: one clear line on stderr and a non-zero exit. */
class BrokerStartupErrorsIT {

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final int EXIT_START_FAILED = 1;
    private static final int EXIT_CONFIG = 2;

    @TempDir
    Path tmp;

    @Test
    void shouldExitWith2NamingAnUnknownKey() {
        final Path data = tmp.resolve("data");
        try (BrokerProcess broker = BrokerProcess.builder(data).set("no.such-key", "1").start()) {
            assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_CONFIG);
            assertOneLine(broker).contains("'no.such-key'").contains("unknown configuration key");
        }
        assertThat(data).as("nothing was started, not even the store").doesNotExist();
    }

    @Test
    void shouldExitWith2NamingAnUnknownKeyInTheConfigFile() throws Exception {
        final Path file = Files.writeString(tmp.resolve("broker.properties"), "store.flush-mode=SYNC\nmqtt.prot=1\n");
        try (BrokerProcess broker = BrokerProcess.builder(tmp.resolve("data")).args("--config", file.toString())
                .start()) {
            assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_CONFIG);
            assertOneLine(broker).contains("'mqtt.prot'").contains(file.toString());
        }
    }

    @Test
    void shouldExitWith2ForAMalformedValue() {
        try (BrokerProcess broker = BrokerProcess.builder(tmp.resolve("data"))
                .set("store.segment-size", "lots").start()) {
            assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_CONFIG);
            assertOneLine(broker).contains("store.segment-size").contains("'lots'");
        }
    }

    @ParameterizedTest
    @CsvSource({"store.transaction-first-check-ms, 99", "store.transaction-check-interval-ms, 0",
            "store.transaction-max-checks, -1", "store.pop-revive-interval-ms, 0", "grpc.min-invisible-ms, 999"})
    void shouldExitWith2ForATuningValueOutOfRange(final String key, final String value) {
        try (BrokerProcess broker = BrokerProcess.builder(tmp.resolve("data")).set(key, value).start()) {
            assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_CONFIG);
            assertOneLine(broker).contains(key).contains("'" + value + "'");
        }
    }

    @Test
    void shouldExitWith2WhenTheInvisibleDurationBoundsCross() {
        try (BrokerProcess broker = BrokerProcess.builder(tmp.resolve("data")).set("grpc.min-invisible-ms", "5000")
                .set("grpc.max-invisible-ms", "4000").start()) {
            assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_CONFIG);
            assertOneLine(broker).contains("grpc.max-invisible-ms").contains("'4000'")
                    .contains("grpc.min-invisible-ms");
        }
    }

    @Test
    void shouldExitNonZeroWhenThePortIsInUse() throws Exception {
        final Path data = tmp.resolve("data");
        final int port = FreePorts.next();
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("0.0.0.0", port));
            try (BrokerProcess broker = BrokerProcess.builder(data).set("http.port", Integer.toString(port)).start()) {
                assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_START_FAILED);
                assertOneLine(broker).contains("cannot listen for http").contains(":" + port)
                        .contains("Address already in use");
            }
        }
        assertThat(data.resolve("abort")).as("the store it had opened was closed cleanly").doesNotExist();
    }

    @Test
    void shouldExitNonZeroForAnUnwritableDataDir() throws Exception {
        // Tests may run as root, which ignores permission bits: a path below a regular file is unwritable for anyone.
        final Path file = Files.writeString(tmp.resolve("not-a-directory"), "x");
        final Path data = file.resolve("data");
        try (BrokerProcess broker = BrokerProcess.builder(tmp.resolve("unused")).set("data.dir", data.toString())
                .start()) {
            assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_START_FAILED);
            assertOneLine(broker).contains(data.toString());
        }
    }

    @Test
    void shouldExitNonZeroNamingACorruptMetadataFile() throws Exception {
        final Path data = tmp.resolve("data");
        try (BrokerProcess clean = BrokerProcess.builder(data).start()) {
            clean.awaitHealthy(DEADLINE);
            assertThat(clean.terminate(DEADLINE)).isZero();
        }
        final Path topics = data.resolve("config").resolve("topics.dat");
        Files.write(topics, "this is not a metadata file".getBytes(StandardCharsets.UTF_8));

        try (BrokerProcess broker = BrokerProcess.builder(data).start()) {
            assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_START_FAILED);
            assertOneLine(broker).contains(topics.toAbsolutePath().toString());
        }
    }

    @Test
    void shouldExitNonZeroWhenAnotherBrokerHoldsTheDataDir() {
        final Path data = tmp.resolve("data");
        try (BrokerProcess first = BrokerProcess.builder(data).start()) {
            first.awaitHealthy(DEADLINE);
            try (BrokerProcess second = BrokerProcess.builder(data).start()) {
                assertThat(second.awaitExit(DEADLINE)).isEqualTo(EXIT_START_FAILED);
                assertOneLine(second).contains(data.toAbsolutePath().toString());
            }
            assertThat(first.get("/health").statusCode()).as("the first broker is unaffected").isEqualTo(200);
            assertThat(first.terminate(DEADLINE)).isZero();
        }
    }

    @Test
    void shouldExitWith1WhenTheNodeIsNotAmongTheClusterMembers() {
        try (BrokerProcess broker = BrokerProcess.builder(tmp.resolve("data")).set("cluster.node-id", "n4")
                .set("cluster.members", "n1@127.0.0.1:1,n2@127.0.0.1:2,n3@127.0.0.1:3").start()) {
            assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_START_FAILED);
            assertOneLine(broker).contains("cluster.node-id n4 is not among cluster.members");
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {"n1@127.0.0.1; is not id@host:port", "n1@h:1,n1@h:2; appears twice",
            "n1@h:99999; outside 1-65535"})
    void shouldExitWith1ForMalformedClusterMembers(final String members, final String reason) {
        try (BrokerProcess broker = BrokerProcess.builder(tmp.resolve("data")).set("cluster.node-id", "n1")
                .set("cluster.members", members).start()) {
            assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_START_FAILED);
            assertOneLine(broker).contains("cluster: ").contains(reason);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"G1=127.0.0.1:9801| is not [a-z0-9-]+",
            "g1=127.0.0.1:9801;g1=127.0.0.1:9802| is listed twice", "g1=127.0.0.1| is not host:port"})
    void shouldExitWith1ForMalformedStoreGroups(final String groups, final String reason) {
        try (BrokerProcess broker = BrokerProcess.builder(tmp.resolve("data")).set("cluster.role", "proxy")
                .set("cluster.store-groups", groups).start()) {
            assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_START_FAILED);
            assertOneLine(broker).contains("cluster.store-groups: ").contains(reason);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {"cluster.snapshot-interval-entries; 0; must be 1 to",
            "cluster.log-segment-size; 4k; must be at least 16k"})
    void shouldExitWith1ForRaftLogLimitsOutOfRange(final String key, final String value, final String reason) {
        try (BrokerProcess broker = BrokerProcess.builder(tmp.resolve("data")).set("cluster.node-id", "n1")
                .set("cluster.members", "n1@127.0.0.1:" + FreePorts.next()).set(key, value).start()) {
            assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_START_FAILED);
            assertOneLine(broker).contains("cluster: " + key + " " + reason);
        }
    }

    @Test
    void shouldExitWith1ForADataDirectoryOfAnotherCluster() throws Exception {
        final Path data = tmp.resolve("data");
        Files.createDirectories(data.resolve("cluster"));
        Files.writeString(data.resolve("cluster/identity.properties"),
                "cluster-id=00000000-0000-0000-0000-000000000000\nnode-id=n1\nmembers=[n1@elsewhere:1]\n");
        try (BrokerProcess broker = BrokerProcess.builder(data).set("cluster.node-id", "n1")
                .set("cluster.members", "n1@127.0.0.1:" + FreePorts.next() + ",n2@127.0.0.1:" + FreePorts.next()
                        + ",n3@127.0.0.1:" + FreePorts.next()).start()) {
            assertThat(broker.awaitExit(DEADLINE)).isEqualTo(EXIT_START_FAILED);
            assertOneLine(broker).contains("belongs to another cluster");
        }
    }

    private static AbstractStringAssert<?> assertOneLine(final BrokerProcess broker) {
        final String err = broker.stderr();
        assertThat(err.lines().count()).as("stderr lines:\n" + broker.output()).isEqualTo(1);
        return assertThat(err.strip()).startsWith("junction: ");
    }
}
