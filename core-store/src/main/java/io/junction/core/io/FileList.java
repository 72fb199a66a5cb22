package io.junction.core.io;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * Unmodifiable copies of a store's file lists (segments, queue files, index files), replaced whole when a file is
 * added or dropped. {@code List.copyOf} returns a different class for 0, 1–2 and 3+ elements, so the list's class
 * changed when the log rolled to its third segment, and the JIT threw away the compiled append, flush and read
 * paths that had seen only the old class. These copies are always of one class.
 */
public final class FileList {
    private FileList() {
    }

    public static <T> List<T> copyOf(final Collection<? extends T> files) {
        return Collections.unmodifiableList(new ArrayList<>(files));
    }
}
