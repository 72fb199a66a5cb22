package io.junction.broker.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.spi.config.ConfigKey;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's configuration table mirrors {@link ConfigKeys}; this keeps them from drifting apart. */
class ReadmeKeysTest {

    @Test
    void shouldDocumentEveryKeyWithItsDefaultInTheReadme() throws Exception {
        // Surefire runs in the module directory; the README is at the repository root.
        final String readme = Files.readString(Path.of("..", "README.md"));

        for (final ConfigKey key : ConfigKeys.broker()) {
            assertThat(readme).as("README row for " + key.name())
                    .contains("| `" + key.name() + "` | `" + key.defaultValue() + "` |");
        }
    }
}
