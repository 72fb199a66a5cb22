package io.junction.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Ports for in-JVM replicas: free now, and never the same twice in this JVM (the OS may offer one twice in a row). */
final class LocalPorts {
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

    private LocalPorts() {
    }

    static int next() {
        while (true) {
            try (ServerSocket s = new ServerSocket(0)) {
                if (GIVEN.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("no free port", e);
            }
        }
    }
}
