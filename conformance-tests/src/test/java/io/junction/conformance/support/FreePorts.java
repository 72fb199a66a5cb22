package io.junction.conformance.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ports nobody listens on right now (the OS picks them), so test brokers never collide with anything. The OS may hand
 * the same free port out twice in a row; a port is given out once per test JVM, so two listeners of one broker (or
 * a restarted broker and its predecessor's other listeners) never get the same one.
 */
public final class FreePorts {
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

    private FreePorts() {
    }

    public static int next() {
        for (int attempt = 0; attempt < 100; attempt++) {
            final int port = probe();
            if (GIVEN.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port that was not given out already");
    }

    private static int probe() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (final IOException e) {
            throw new UncheckedIOException("no free port", e);
        }
    }
}
