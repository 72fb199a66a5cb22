package io.junction.core.crash;

import io.junction.core.engine.FlushMode;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.TestStores;
import io.junction.core.message.Message;
import io.junction.core.meta.TopicConfig;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;

/**
 * The child process of {@link CrashRecoveryTest}: opens a SYNC store and sends numbered messages as fast as it can,
 * printing {@code ACK <n>} once message n's send completed (it is durable then). It never stops by itself; the test
 * kills it with SIGKILL.
 *
 * <p>Arguments: data directory, first message number.
 */
public final class CrashingAppender {
    static final String TOPIC = "crash";
    static final int QUEUES = 4;

    private CrashingAppender() {
    }

    /** The exact body of message {@code n}: its length and bytes follow from n, so a check needs no record. */
    static byte[] body(final long n) {
        final int length = 16 + (int) (n * 7919 % 2000);
        final byte[] body = new byte[length];
        long x = n * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            body[i] = (byte) x;
        }
        return body;
    }

    public static void main(final String[] args) throws Exception {
        final StoreConfig config = TestStores.small(Path.of(args[0])).flushMode(FlushMode.SYNC).build();
        final long first = Long.parseLong(args[1]);
        final MessageStore store = MessageStore.open(config);
        store.topics().createOrUpdate(TopicConfig.of(TOPIC, QUEUES)).join();
        final BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.US_ASCII));
        out.write("READY\n");
        out.flush();
        final Semaphore inFlight = new Semaphore(32);
        for (long n = first; ; n++) {
            inFlight.acquire();
            final long number = n;
            store.send(Message.builder(TOPIC).queueId((int) (n % QUEUES)).keys("n" + n).body(body(n)).build())
                    .whenComplete((r, e) -> {
                        inFlight.release();
                        if (e == null) {
                            synchronized (out) {
                                try {
                                    out.write("ACK " + number + "\n");
                                    out.flush();
                                } catch (java.io.IOException parentGone) {
                                    // The test reads until it kills this process, so its pipe only breaks when the
                                    // test itself is gone: stop, or this orphan writes until the disk is full (one
                                    // did: 17 GB in 50 minutes after its test was killed).
                                    Runtime.getRuntime().halt(3);
                                }
                            }
                        }
                    });
        }
    }
}
