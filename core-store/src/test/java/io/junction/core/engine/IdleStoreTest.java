package io.junction.core.engine;

import static io.junction.core.engine.TestStores.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.junction.core.message.Message;
import io.junction.core.message.MessageProperties;
import io.junction.core.meta.TopicConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An idle store's own threads sleep: the timer and the dispatcher wake when there is work (a timer due, records made
 * visible), not every few milliseconds to look for it. Counted as the kernel counts them, in each thread's context
 * switches (Linux's {@code /proc/self/task/<tid>/status}), over a second with nothing sent: they woke 200 times a
 * second each before, which cost an idle broker about 2 % of a core.
 */
class IdleStoreTest {
    /** Thread names as the kernel keeps them: their first 15 characters. */
    private static final Set<String> SLEEPERS = Set.of("junction-timer", "junction-dispat");
    /** Most wake-ups a sleeper may make in the measured second: its safety-net sleeps are 100 ms. */
    private static final long MAX_WAKE_UPS = 30;

    @TempDir
    Path dir;

    @Test
    void shouldLetTheTimerAndDispatcherThreadsSleepWhileNothingHappens() throws InterruptedException {
        final Path tasks = Path.of("/proc/self/task");
        assumeTrue(Files.isDirectory(tasks), "needs Linux's /proc");
        final Set<String> before = sleeperTasks(tasks).keySet();
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createIfAbsent(TopicConfig.of("t", 1)).join();
            store.send(text("t", "now")).join();
            // A timer an hour away: the timer thread has one to wait for, not an empty wheel.
            store.send(Message.builder("t").body(new byte[] {1}).property(MessageProperties.DELIVER_AT,
                    Long.toString(System.currentTimeMillis() + 3_600_000)).build()).join();
            TestStores.awaitIndexed(store);
            Thread.sleep(300);

            final Map<String, String> mine = new HashMap<>(sleeperTasks(tasks));
            mine.keySet().removeAll(before);
            assertThat(mine.values()).as("this store's timer and dispatcher threads")
                    .containsExactlyInAnyOrderElementsOf(SLEEPERS);
            final Map<String, Long> start = switches(tasks, mine);
            Thread.sleep(1_000);
            final Map<String, Long> end = switches(tasks, mine);
            for (Map.Entry<String, String> t : mine.entrySet()) {
                assertThat(end.get(t.getKey()) - start.get(t.getKey()))
                        .as("context switches of %s in an idle second", t.getValue())
                        .isLessThanOrEqualTo(MAX_WAKE_UPS);
            }
            assertThat(store.pendingTimers()).as("the timer an hour away").isEqualTo(1);
        }
    }

    /** The process's timer and dispatcher threads: task id to name. */
    private static Map<String, String> sleeperTasks(final Path tasks) {
        try (Stream<Path> all = Files.list(tasks)) {
            return all.map(t -> Map.entry(t.getFileName().toString(), comm(t)))
                    .filter(e -> SLEEPERS.contains(e.getValue()))
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String comm(final Path task) {
        try {
            return Files.readString(task.resolve("comm")).trim();
        } catch (IOException e) {
            return ""; // the thread ended meanwhile
        }
    }

    /** Voluntary plus involuntary context switches of each task so far. */
    private static Map<String, Long> switches(final Path tasks, final Map<String, String> which) {
        final Map<String, Long> counts = new HashMap<>();
        for (String tid : which.keySet()) {
            try {
                long n = 0;
                for (String line : Files.readAllLines(tasks.resolve(tid).resolve("status"))) {
                    if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                        n += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                    }
                }
                counts.put(tid, n);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return counts;
    }
}
