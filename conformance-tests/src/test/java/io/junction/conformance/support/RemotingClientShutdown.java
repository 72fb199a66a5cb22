package io.junction.conformance.support;

/**
 * Shuts down a throwaway RocketMQ Remoting client (a consumer read once, a producer used once) on a thread of its own,
 * so that the test does not wait for the shutdown's last step.
 *
 * <p>Why: the 5.x client's shutdown unregisters from the broker and closes its channels, then joins its channel-event
 * thread without interrupting it ({@code ServiceThread.shutdown(false)}), and that idle thread wakes only when its
 * 3 s queue poll times out: each shutdown waits up to 3 s (1.5 s on average) for nothing. Only for clients of their
 * own group and instance name, that nothing later in the test reads again; a client whose unregistering a test
 * relies on is shut down in line.
 */
public final class RemotingClientShutdown {
    private RemotingClientShutdown() {
    }

    /** Runs {@code shutdown} (a client's {@code shutdown()}) on a daemon thread and returns at once. */
    public static void inBackground(final Runnable shutdown) {
        final Thread closer = new Thread(shutdown, "rocketmq-client-shutdown");
        closer.setDaemon(true);
        closer.start();
    }
}
