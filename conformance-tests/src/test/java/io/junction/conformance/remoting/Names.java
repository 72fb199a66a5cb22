package io.junction.conformance.remoting;

import io.junction.conformance.support.RocketMqClientLogs;
import java.util.concurrent.atomic.AtomicInteger;

/** Fresh topic, group and client names, so tests sharing a broker never share topics or groups. */
final class Names {
    private static final AtomicInteger SEQ = new AtomicInteger();

    static {
        RocketMqClientLogs.keepOutOfHome();
    }

    private Names() {
    }

    static String unique(final String prefix) {
        return prefix + "-" + ProcessHandle.current().pid() + "-" + SEQ.incrementAndGet() + "-"
                + Long.toString(System.nanoTime() & 0xFFFFFF, 36);
    }
}
