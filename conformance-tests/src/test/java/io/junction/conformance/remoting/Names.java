package io.junction.conformance.remoting;

import java.util.concurrent.atomic.AtomicInteger;

/** Fresh topic, group and client names, so tests sharing a broker never share topics or groups. */
final class Names {
    private static final AtomicInteger SEQ = new AtomicInteger();

    static {
        // Keep the client's own log files out of the home directory (set before any RocketMQ client class loads).
        System.setProperty("rocketmq.client.logRoot", System.getProperty("java.io.tmpdir") + "/rocketmq-client-logs");
        System.setProperty("rocketmq.client.logLevel", "WARN");
    }

    private Names() {
    }

    static String unique(final String prefix) {
        return prefix + "-" + ProcessHandle.current().pid() + "-" + SEQ.incrementAndGet() + "-"
                + Long.toString(System.nanoTime() & 0xFFFFFF, 36);
    }
}
