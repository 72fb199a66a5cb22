package io.junction.core.engine;

import io.junction.core.meta.MetadataFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The recovery starting point: every record below {@code indexedOffset} is durable in the log and its queue and
 * index entries are durable too. Recovery re-verifies and re-indexes the log from there.
 */
final class Checkpoint {
    private static final int VERSION = 1;
    private final MetadataFile file;

    Checkpoint(final Path file) {
        this.file = new MetadataFile(file, VERSION);
    }

    /** The checkpointed offset, 0 when there is none (re-index the whole log). */
    long read() {
        return file.read().map(ByteBuffer::getLong).orElse(0L);
    }

    void write(final long indexedOffset, final long timestamp) throws IOException {
        file.write(ByteBuffer.allocate(16).putLong(indexedOffset).putLong(timestamp).array());
    }
}
