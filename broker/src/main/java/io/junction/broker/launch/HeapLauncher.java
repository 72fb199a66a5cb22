package io.junction.broker.launch;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Gives the broker a bounded heap when whoever started it set none.
 *
 * <p>A JVM started without {@code -Xmx} may grow its heap to a quarter of the machine, so on a big machine the broker's
 * memory would follow the machine instead of its work; and a jar cannot carry JVM options. So {@code java -jar
 * junction.jar} without a heap option starts the broker in a child JVM with the same options plus a bounded heap and
 * bounded direct memory, and only waits for it: the child's output is this process's, its exit code becomes this
 * process's, a SIGTERM or Ctrl-C here stops the child gracefully first. The child watches its stdin, a pipe from this
 * process: if this process dies (SIGKILL) the pipe closes and the child stops gracefully too, so no broker is left
 * behind holding the ports and the data directory.
 *
 * <p>Any heap option ({@code -Xmx}, {@code -XX:MaxHeapSize}, {@code -XX:MaxRAMPercentage}, ...), also through
 * {@code JAVA_TOOL_OPTIONS} or {@code JDK_JAVA_OPTIONS}, or {@code -Djunction.relaunch=false} runs the broker in this
 * JVM as given.
 */
public final class HeapLauncher {
    /** Set on the child's command line: it is the broker, and watches its parent. */
    public static final String CHILD_PROPERTY = "junction.launched";
    /** {@code -Djunction.relaunch=false}: never start a child. */
    public static final String RELAUNCH_PROPERTY = "junction.relaunch";
    /**
     * The child's heap. The broker's buffers and queues are bounded by design (back-pressure, not buffering), so its
     * live data is small; this leaves room for bursts while keeping the process well under 512 MB.
     */
    public static final String DEFAULT_HEAP = "256m";
    /** The child's direct memory (Netty's pooled buffers): the JVM's default would equal the heap. */
    public static final String DEFAULT_DIRECT_MEMORY = "128m";

    private static final List<String> HEAP_OPTIONS = List.of("-Xmx", "-XX:MaxHeapSize=", "-XX:MaxRAMPercentage=",
            "-XX:MaxRAMFraction=", "-XX:MaxRAM=");
    /** Commands that print and exit: not worth a second JVM. */
    private static final Set<String> QUICK_COMMANDS = Set.of("-h", "--help", "-V", "--version", "admin");

    private HeapLauncher() {
    }

    /**
     * Whether this JVM should start the broker in a child with a bounded heap instead of running it.
     *
     * @param jvmOptions this JVM's options ({@code RuntimeMXBean.getInputArguments()})
     */
    static boolean shouldRelaunch(final List<String> jvmOptions, final String[] args, final String classPath) {
        if (Boolean.getBoolean(CHILD_PROPERTY) || "false".equals(System.getProperty(RELAUNCH_PROPERTY))) {
            return false;
        }
        if (args.length > 0 && QUICK_COMMANDS.contains(args[0])) {
            return false;
        }
        // Started from the jar (or a class path we can pass on); a launcher we do not understand runs as given.
        if (classPath == null || classPath.isEmpty()) {
            return false;
        }
        return jvmOptions.stream().noneMatch(o -> HEAP_OPTIONS.stream().anyMatch(o::startsWith));
    }

    /** The child's command line: this JVM's options, the bounds, the same class path, main class and arguments. */
    static List<String> childCommand(final List<String> jvmOptions, final String classPath, final String mainClass,
                                     final String[] args) {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-Xmx" + DEFAULT_HEAP);
        if (jvmOptions.stream().noneMatch(o -> o.startsWith("-XX:MaxDirectMemorySize="))) {
            command.add("-XX:MaxDirectMemorySize=" + DEFAULT_DIRECT_MEMORY);
        }
        command.add("-D" + CHILD_PROPERTY + "=true");
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(List.of(args));
        return command;
    }

    /**
     * Runs the broker in a child JVM with a bounded heap if this JVM has none, and returns its exit code; returns
     * -1 without doing anything when this JVM should run the broker itself.
     */
    public static int relaunchIfUnbounded(final Class<?> mainClass, final String[] args) {
        final List<String> jvmOptions = ManagementFactory.getRuntimeMXBean().getInputArguments();
        final String classPath = System.getProperty("java.class.path");
        if (!shouldRelaunch(jvmOptions, args, classPath)) {
            return -1;
        }
        final Process child;
        try {
            child = new ProcessBuilder(childCommand(jvmOptions, classPath, mainClass.getName(), args))
                    .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .redirectInput(ProcessBuilder.Redirect.PIPE)
                    .start();
        } catch (IOException e) {
            // Cannot start a second JVM (no java binary where ours is?): run here, unbounded, rather than not at all.
            System.err.println("junction: cannot start the broker with a bounded heap (" + e.getMessage()
                    + "); running in this JVM: set -Xmx to bound it");
            return -1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stopChild(child), "junction-launcher-stop"));
        while (true) {
            try {
                return child.waitFor();
            } catch (InterruptedException e) {
                // Only a signal ends the wait early, and the shutdown hook handles that.
            }
        }
    }

    /** A signal reached this process: stop the broker gracefully, wait for it, and exit as it did. */
    private static void stopChild(final Process child) {
        if (child.isAlive()) {
            child.destroy();
        }
        while (true) {
            try {
                Runtime.getRuntime().halt(child.waitFor());
            } catch (InterruptedException e) {
                // Keep waiting: leaving would close the pipe and the child would stop anyway, but unseen.
            }
        }
    }

    /**
     * In the child: stop gracefully (exit 0, which runs the broker's shutdown hook) once the launching process is
     * gone, seen as the end of stdin.
     */
    public static void watchParentIfLaunched() {
        if (!Boolean.getBoolean(CHILD_PROPERTY)) {
            return;
        }
        final Thread watcher = new Thread(() -> {
            final InputStream in = System.in;
            try {
                while (in.read() >= 0) {
                    // The launcher never writes; ignore anything that arrives.
                }
            } catch (IOException e) {
                // Same as the end of the stream: the launcher is gone.
            }
            System.err.println("junction: the launching process is gone; stopping");
            System.exit(0);
        }, "junction-parent-watch");
        watcher.setDaemon(true);
        watcher.start();
    }
}
