package io.junction.core.io;

import java.io.IOException;
import java.nio.file.Path;

/** Opens or creates the segment files of a log. */
public interface SegmentFileFactory {

    /**
     * Opens the segment {@code file}, creating it with {@code capacity} bytes when it does not exist.
     *
     * @throws IOException when the file cannot be opened or has another size
     */
    SegmentFile open(Path file, long baseOffset, int capacity) throws IOException;
}
