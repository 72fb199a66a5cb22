package io.junction.conformance.support;

import java.io.IOException;
import java.nio.file.Path;

/** What a test writes into a broker's data directory before the broker first starts on it. */
@FunctionalInterface
public interface DataDirSeed {

    void write(Path dataDir) throws IOException;

    /** Nothing: the broker starts on an empty directory. */
    final class None implements DataDirSeed {
        @Override
        public void write(final Path dataDir) {
        }
    }
}
