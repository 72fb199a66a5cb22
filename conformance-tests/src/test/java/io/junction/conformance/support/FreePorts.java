package io.junction.conformance.support;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports nobody listens on right now, below the OS's ephemeral range. A broker restarted on its old ports (a cluster
 * node must keep its Raft and contract ports) would otherwise race every outgoing connection on the machine: the
 * OS hands those their local port from the ephemeral range, and one took a killed node's port in a CI run. A port is
 * given out once per test JVM, so two listeners of one broker (or a restarted broker and its predecessor's other
 * listeners) never get the same one; the search starts at a random port so test JVMs running side by side rarely
 * probe the same ones.
 */
public final class FreePorts {
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();
    /** Below this are well-known services' registered ports; the range from here up to the ephemeral start is ours. */
    private static final int LOWEST = 10_000;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    /** Linux's default ephemeral start, for when the range cannot be read. */
    private static final int DEFAULT_EPHEMERAL_START = 32_768;
    private static final int HIGHEST = ephemeralStart() - 1;

    private FreePorts() {
    }

    public static int next() {
        final int span = HIGHEST - LOWEST + 1;
        final int start = ThreadLocalRandom.current().nextInt(span);
        for (int i = 0; i < span; i++) {
            final int port = LOWEST + (start + i) % span;
            if (!GIVEN.contains(port) && free(port) && GIVEN.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port in " + LOWEST + ".." + HIGHEST);
    }

    private static boolean free(final int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(port));
            return true;
        } catch (final IOException e) {
            return false;
        }
    }

    private static int ephemeralStart() {
        try {
            final int start = Integer.parseInt(Files.readString(EPHEMERAL_RANGE).trim().split("\\s+")[0]);
            return start > LOWEST + 1_000 ? start : DEFAULT_EPHEMERAL_START;
        } catch (final IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_START;
        }
    }
}
