package io.junction.broker.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.spi.ProtocolFrontEnd;
import io.junction.spi.config.ConfigKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The README's configuration table mirrors {@link ConfigKeys}; this keeps them from drifting apart. */
class ReadmeKeysTest {

    @Test
    void shouldDocumentEveryKeyWithItsDefaultInTheReadme() throws Exception {
        // Surefire runs in the module directory; the README is at the repository root.
        final String readme = Files.readString(Path.of("..", "README.md"));

        final List<ConfigKey> keys = new ArrayList<>(ConfigKeys.broker());
        // Every front-end on the broker's classpath declares its own keys; they are documented in the same table.
        ServiceLoader.load(ProtocolFrontEnd.class).forEach(frontEnd -> keys.addAll(frontEnd.configKeys()));
        assertThat(keys).extracting(ConfigKey::name).contains("mqtt.port", "grpc.tls-cert-file");
        for (final ConfigKey key : keys) {
            final String value = key.defaultValue().isEmpty() ? "(none)" : "`" + key.defaultValue() + "`";
            assertThat(readme).as("README row for " + key.name())
                    .contains("| `" + key.name() + "` | " + value + " |");
        }
    }
}
