package io.junction.core.engine;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import io.junction.core.meta.MetadataFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Optional;

/**
 * The key that seals receipt handles: made at first start and kept, so handles stay valid across a restart.
 */
final class PopSecret {
    private static final int VERSION = 1;
    private static final int LENGTH = 32;

    private PopSecret() {
    }

    static byte[] load(final Path file) {
        final MetadataFile meta = new MetadataFile(file, VERSION);
        final Optional<ByteBuffer> existing = meta.read();
        if (existing.isPresent() && existing.get().remaining() == LENGTH) {
            final byte[] key = new byte[LENGTH];
            existing.get().get(key);
            return key;
        }
        final byte[] key = new byte[LENGTH];
        new SecureRandom().nextBytes(key);
        try {
            meta.write(key);
        } catch (IOException e) {
            throw new StoreException(StoreError.IO_ERROR, "cannot write " + file + ": " + e.getMessage(), e);
        }
        return key;
    }
}
