package io.junction.broker.lifecycle;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What has been opened, in order. Closing goes newest first and carries on past failures (logging them), because a
 * component that fails to close must not keep the store from writing its clean-shutdown marker.
 */
public final class ResourceStack {

    private static final Logger LOG = LoggerFactory.getLogger(ResourceStack.class);

    /** Something to close, named for the log. */
    @FunctionalInterface
    public interface Closer {
        void close() throws Exception;
    }

    private record Entry(String name, Closer closer) {
    }

    private final Deque<Entry> opened = new ArrayDeque<>();

    /** Remembers a resource to close; returns it for chaining. */
    public synchronized <T extends AutoCloseable> T push(final String name, final T resource) {
        opened.push(new Entry(name, resource::close));
        return resource;
    }

    /** Remembers a close action. */
    public synchronized void onClose(final String name, final Closer closer) {
        opened.push(new Entry(name, closer));
    }

    /**
     * Closes everything, newest first. Safe to call again (later calls find nothing).
     *
     * @return true when every close succeeded
     */
    public boolean closeAll() {
        boolean clean = true;
        Entry entry;
        while ((entry = pop()) != null) {
            try {
                entry.closer().close();
                LOG.debug("closed {}", entry.name());
            } catch (final Exception e) {
                clean = false;
                LOG.error("closing {} failed", entry.name(), e);
            }
        }
        return clean;
    }

    private synchronized Entry pop() {
        return opened.poll();
    }
}
