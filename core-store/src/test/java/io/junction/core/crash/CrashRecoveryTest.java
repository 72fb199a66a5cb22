package io.junction.core.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.engine.FlushMode;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import io.junction.core.engine.TestStores;
import io.junction.core.message.StoredMessage;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a child JVM appending in SYNC mode with SIGKILL at random moments, reopens the store after each kill and
 * checks that every acknowledged message is there with its exact bytes, in per-queue order, and that numbering
 * continues without gaps in the queues. The same directory is reused, so every run also recovers all earlier ones.
 *
 * <p>Kill points per run: {@code -Djunction.crash.kills=N} (default 20); the seed is printed so a failure replays.
 */
@Tag("crash")
class CrashRecoveryTest {
    @TempDir
    Path dir;

    @Test
    void shouldKeepEveryAcknowledgedMessageAcrossRandomKills() throws Exception {
        final int kills = Integer.getInteger("junction.crash.kills", 20);
        final long seed = Long.getLong("junction.crash.seed", System.nanoTime());
        System.out.println("CrashRecoveryTest seed " + seed + ", kills " + kills);
        final Random random = new Random(seed);
        final Set<Long> acked = ConcurrentHashMap.newKeySet();
        int totalKilledWithInFlight = 0;
        for (int run = 0; run < kills; run++) {
            final long first = run * 10_000_000L;
            final Process child = startChild(first);
            final CountDownLatch ready = new CountDownLatch(1);
            final Thread reader = new Thread(() -> readAcks(child, acked, ready));
            reader.start();
            assertThat(ready.await(30, TimeUnit.SECONDS)).as("child started").isTrue();
            Thread.sleep(50 + random.nextInt(400)); // the kill point: a random moment of steady appending
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            reader.join(10_000);
            totalKilledWithInFlight++;
            verify(acked, run);
        }
        System.out.println("CrashRecoveryTest: " + acked.size() + " acknowledged messages over " + kills
                + " kills, all present");
        assertThat(totalKilledWithInFlight).isEqualTo(kills);
        assertThat(acked.size()).as("acknowledged messages over all runs").isGreaterThan(kills * 10);
    }

    private Process startChild(final long first) throws Exception {
        final String java = ProcessHandle.current().info().command().orElse("java");
        final ProcessBuilder pb = new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                CrashingAppender.class.getName(), dir.toString(), Long.toString(first));
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return pb.start();
    }

    private static void readAcks(final Process child, final Set<Long> acked, final CountDownLatch ready) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.US_ASCII))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.equals("READY")) {
                    ready.countDown();
                } else if (line.startsWith("ACK ")) {
                    acked.add(Long.parseLong(line.substring(4)));
                }
            }
        } catch (Exception ignored) {
            // The child was killed mid-line: a partial line is not an acknowledgement.
        }
    }

    private void verify(final Set<Long> acked, final int run) {
        final StoreConfig config = TestStores.small(dir).flushMode(FlushMode.SYNC).build();
        try (MessageStore store = MessageStore.open(config)) {
            assertThat(store.stats().recoveredFromCrash()).isTrue();
            final Map<Long, StoredMessage> found = new HashMap<>();
            for (int q = 0; q < CrashingAppender.QUEUES; q++) {
                final List<StoredMessage> queue = TestStores.readAll(store, CrashingAppender.TOPIC, q);
                for (int i = 0; i < queue.size(); i++) {
                    assertThat(queue.get(i).queueOffset()).as("queue %d has no holes", q).isEqualTo(i);
                }
                final List<Long> numbers = new ArrayList<>();
                for (StoredMessage m : queue) {
                    final long n = Long.parseLong(m.keys().substring(1));
                    numbers.add(n);
                    assertThat(found.put(n, m)).as("message %d stored once", n).isNull();
                }
                final List<Long> sorted = new ArrayList<>(numbers);
                sorted.sort(null);
                assertThat(numbers).as("per-queue order").isEqualTo(sorted);
            }
            for (long n : acked) {
                final StoredMessage m = found.get(n);
                assertThat(m).as("run %d: acknowledged message %d present", run, n).isNotNull();
                assertThat(Arrays.equals(m.bodyBytes(), CrashingAppender.body(n)))
                        .as("message %d has its exact bytes", n).isTrue();
            }
            for (Map.Entry<Long, StoredMessage> e : found.entrySet()) {
                assertThat(Arrays.equals(e.getValue().bodyBytes(), CrashingAppender.body(e.getKey())))
                        .as("stored message %d is intact", e.getKey()).isTrue();
            }
        }
    }
}
