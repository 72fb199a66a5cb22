package io.junction.bench.grpc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One server JVM this benchmark started (Junction, or one of RocketMQ's name server, broker and proxy): its output
 * goes to files in the run directory; it is stopped by its own process handle, never by name.
 */
final class ServerProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path out;

    private ServerProcess(final String name, final Process process, final Path out) {
        this.name = name;
        this.process = process;
        this.out = out;
    }

    /** Starts {@code java jvmArgs... mainOrJar...} with its output in {@code dir/name.log}. */
    static ServerProcess start(final String name, final Path dir, final List<String> javaArgs,
                               final Map<String, String> env) {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(javaArgs);
        final Path out = dir.resolve(name + ".log");
        try {
            final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).directory(dir.toFile());
            pb.environment().putAll(env);
            return new ServerProcess(name, pb.start(), out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
    }

    long pid() {
        return process.pid();
    }

    /** Waits until {@code port} on loopback accepts a connection; fails with the log's tail if it exits first. */
    void awaitPort(final int port, final Duration deadline) {
        final long end = System.nanoTime() + deadline.toNanos();
        while (System.nanoTime() < end) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + tail());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                sleep(100);
            }
        }
        throw new IllegalStateException(name + " did not listen on " + port + " within " + deadline + ":\n" + tail());
    }

    /** Waits until the output contains {@code text}. */
    void awaitOutput(final String text, final Duration deadline) {
        final long end = System.nanoTime() + deadline.toNanos();
        while (System.nanoTime() < end) {
            if (output().contains(text)) {
                return;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + tail());
            }
            sleep(100);
        }
        throw new IllegalStateException(name + " did not print '" + text + "' within " + deadline + ":\n" + tail());
    }

    /** Waits for the process to exit (a tool run); its exit code. */
    int awaitExit(final Duration deadline) throws InterruptedException {
        if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(name + " did not finish within " + deadline + ":\n" + tail());
        }
        return process.exitValue();
    }

    String output() {
        try {
            return Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }

    String tail() {
        final String all = output();
        return all.length() <= 4000 ? all : all.substring(all.length() - 4000);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** A port free now on every address (servers bind the wildcard address). */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code n} distinct ports free now (all held open while choosing, so none repeats). */
    static int[] freePorts(final int n) {
        final ServerSocket[] held = new ServerSocket[n];
        try {
            final int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                held[i] = new ServerSocket(0);
                ports[i] = held[i].getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : held) {
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // closing a probe socket
                    }
                }
            }
        }
    }

    /** A port p free now with p - 2 and p + 1 free too (a RocketMQ broker takes all three). */
    static int freeBrokerPort() {
        for (int attempt = 0; attempt < 100; attempt++) {
            final int p = freePort();
            if (p > 1026 && p < 65534 && isFree(p - 2) && isFree(p + 1)) {
                return p;
            }
        }
        throw new IllegalStateException("no free port triple found");
    }

    private static boolean isFree(final int port) {
        try (ServerSocket s = new ServerSocket(port)) {
            return s.isBound();
        } catch (IOException e) {
            return false;
        }
    }

    static void sleep(final long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
