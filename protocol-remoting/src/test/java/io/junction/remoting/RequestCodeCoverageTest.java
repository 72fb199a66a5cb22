package io.junction.remoting;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.remoting.security.RequestPermissions;
import io.junction.spi.config.ConfigKey;
import io.junction.spi.config.FrontEndConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** With security on, a code missing from the permission table is refused: every code the dispatcher serves is in it. */
class RequestCodeCoverageTest {

    @Test
    void everyDispatchedCodeHasAPermission() throws Exception {
        final Path dir = Files.createTempDirectory("remoting-codes");
        try (MessageStore store = MessageStore.open(StoreConfig.builder(dir).segmentSize(16 << 20)
                .flushInterval(Duration.ofMillis(50)).build())) {
            final RemotingFrontEnd frontEnd = new RemotingFrontEnd();
            final Map<String, String> values = new HashMap<>();
            for (ConfigKey key : frontEnd.configKeys()) {
                values.put(key.name(), key.defaultValue());
            }
            values.put("remoting.port", "0");
            final RemotingHandler handler = frontEnd.handler(store, new FrontEndConfig("remoting", values),
                    new BrokerIdentity("b", "c", "127.0.0.1:9876"));
            final Set<Integer> dispatched = new TreeSet<>(handler.codes());
            final Set<Integer> covered = new RequestPermissions(store, "c", "b").codes();

            assertThat(dispatched).hasSizeGreaterThan(40); // the walk really walked the dispatcher
            assertThat(covered).containsAll(dispatched);
            assertThat(new TreeSet<>(covered)).as("no table entry for a code nobody serves").isEqualTo(dispatched);
        }
    }
}
