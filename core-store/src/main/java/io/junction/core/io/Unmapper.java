package io.junction.core.io;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Unmaps a memory map now instead of when the garbage collector finds it unreachable, which may be much later (a map
 * that lived long enough sits in the old generation), so the process's resident pages follow what is mapped, not the
 * collector. Java 17 offers this only through {@code sun.misc.Unsafe#invokeCleaner} (module jdk.unsupported); found by
 * reflection so the build has no internal-API warning. Where it is missing, maps are left to the collector.
 *
 * <p>The caller guarantees nobody touches the map (or any view of it) afterwards: that would crash the JVM.
 */
final class Unmapper {
    private static final Logger LOG = LoggerFactory.getLogger(Unmapper.class);
    private static final MethodHandle INVOKE_CLEANER = invokeCleaner();

    private Unmapper() {
    }

    private static MethodHandle invokeCleaner() {
        try {
            final Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            final Field field = unsafeClass.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            return MethodHandles.lookup()
                    .findVirtual(unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
                    .bindTo(field.get(null));
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warn("Memory maps cannot be unmapped explicitly ({}); the garbage collector unmaps them", e.toString());
            return null;
        }
    }

    /** Whether {@link #unmap} releases maps immediately. */
    static boolean explicit() {
        return INVOKE_CLEANER != null;
    }

    /** Unmaps {@code map} (the buffer {@code FileChannel.map} returned, not a view of it). */
    static void unmap(final MappedByteBuffer map) {
        if (INVOKE_CLEANER == null) {
            return;
        }
        try {
            INVOKE_CLEANER.invokeExact((ByteBuffer) map);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot unmap " + map, e);
        }
    }
}
