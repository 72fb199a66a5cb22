package io.junction.core.engine;

import java.nio.ByteBuffer;
import java.util.function.IntFunction;

/**
 * Direct memory a thread reads lent records into ({@link io.junction.core.Messaging#pullLent}): one buffer per thread,
 * reused by that thread's next lent read, so a lent record costs no heap array (allocated, zeroed, then collected) and
 * no copy through the JDK's temporary direct buffer: a positional read fills a direct buffer itself. Runs that no
 * longer fit get heap memory, as unlent reads do.
 *
 * <p>Bounded: {@link #CAPACITY} per thread that ever made a lent read, the store's reader threads.
 */
final class LendingMemory implements IntFunction<ByteBuffer> {
    /** A Kafka partition read (1 MiB by default) fits. */
    static final int CAPACITY = 1 << 20;
    private static final ThreadLocal<LendingMemory> PER_THREAD = ThreadLocal.withInitial(LendingMemory::new);

    private final ByteBuffer buffer = ByteBuffer.allocateDirect(CAPACITY);
    private int used;

    private LendingMemory() {
    }

    /** This thread's memory, all of it free again: what the thread lent before has been handed back. */
    static LendingMemory ofThisThread() {
        final LendingMemory memory = PER_THREAD.get();
        memory.used = 0;
        return memory;
    }

    @Override
    public ByteBuffer apply(final int bytes) {
        if (bytes > CAPACITY - used) {
            return ByteBuffer.allocate(bytes);
        }
        final ByteBuffer slice = buffer.slice(used, bytes);
        used += bytes;
        return slice;
    }
}
