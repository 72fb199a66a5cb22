package io.junction.conformance.support;

/**
 * Where the RocketMQ client writes its own log files. The client reads these properties once, when its logger class
 * loads, so a test class that uses a RocketMQ client calls {@link #keepOutOfHome()} from its static initialiser,
 * before any client class is touched; otherwise the client fills {@code ~/logs/rocketmqlogs} at INFO level.
 */
public final class RocketMqClientLogs {
    private RocketMqClientLogs() {
    }

    /** Sends the client's log files to the temporary directory and keeps only warnings; calling it again is harmless. */
    public static void keepOutOfHome() {
        System.setProperty("rocketmq.client.logRoot", System.getProperty("java.io.tmpdir") + "/rocketmq-client-logs");
        System.setProperty("rocketmq.client.logLevel", "WARN");
    }
}
