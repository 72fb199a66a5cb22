package io.junction.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.engine.MessageStore;
import io.junction.core.engine.StoreConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The QoS 2 ledger's records over a real store: what a session saved is what a restart reads back. */
class Qos2LedgerTest {
    @TempDir
    Path dir;

    private MessageStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private Qos2Ledger open() throws Exception {
        if (store != null) {
            store.close();
        }
        store = MessageStore.open(StoreConfig.builder(dir).segmentSize(16 << 20).maxMessageSize(64 * 1024)
                .flushInterval(Duration.ofMillis(20)).diskFullRatio(1.01).maxDiskUsedRatio(1.01).build());
        return new Qos2Ledger(store);
    }

    private static Qos2Ledger.Position at(final String topic, final int queue, final long offset) {
        return new Qos2Ledger.Position(new Qos2Ledger.Queue(topic, queue), offset);
    }

    @Test
    void shouldReadBackTheLastStateOfEverySessionAfterARestart() throws Exception {
        Qos2Ledger ledger = open();
        ledger.load().get(10, TimeUnit.SECONDS);
        ledger.save("a", List.of(new Qos2Ledger.InFlight(7, false, at("x", 1, 40))), Set.of(),
                Map.of(new Qos2Ledger.Queue("x", 1), 38L), List.of()).get(10, TimeUnit.SECONDS);
        ledger.save("a", List.of(new Qos2Ledger.InFlight(7, true, at("x", 1, 40)),
                        new Qos2Ledger.InFlight(65535, false, at("y%2F", 0, 3))),
                Set.of(at("x", 1, 39)), Map.of(new Qos2Ledger.Queue("x", 1), 39L),
                List.of(new Qos2Ledger.Inbound(3, "AC1100010000ABCD", "t%2F"))).get(10, TimeUnit.SECONDS);
        ledger.save("b", List.of(new Qos2Ledger.InFlight(1, false, at("x", 0, 0))), Set.of(), Map.of(), List.of())
                .get(10, TimeUnit.SECONDS);
        ledger.delete("b");
        ledger.save("c", List.of(), Set.of(), Map.of(), List.of()).get(10, TimeUnit.SECONDS);

        ledger = open();
        final Map<String, Qos2Ledger.Saved> saved = ledger.load().get(10, TimeUnit.SECONDS);
        assertThat(saved).containsOnlyKeys("a", "c");
        final Qos2Ledger.Saved a = saved.get("a");
        assertThat(a.inFlight()).containsExactly(new Qos2Ledger.InFlight(7, true, at("x", 1, 40)),
                new Qos2Ledger.InFlight(65535, false, at("y%2F", 0, 3)));
        assertThat(a.done()).containsExactly(at("x", 1, 39));
        assertThat(a.committed()).containsExactly(Map.entry(new Qos2Ledger.Queue("x", 1), 39L));
        assertThat(a.inbound()).containsExactly(new Qos2Ledger.Inbound(3, "AC1100010000ABCD", "t%2F"));
        assertThat(saved.get("c").inFlight()).isEmpty();
    }

    @Test
    void shouldSkipMalformedLinesAndKeepTheRest() {
        final Qos2Ledger.Saved s = Qos2Ledger.decode("a", ("qos2\nf 1 0 2 10 t\nf x 0 2 11 t\nd 2\nc 2 9 t\n"
                + "d 2 12 t\ni 5 ABC t\ni 6\nunknown line\n").getBytes(StandardCharsets.UTF_8));
        assertThat(s.inFlight()).containsExactly(new Qos2Ledger.InFlight(1, false, at("t", 2, 10)));
        assertThat(s.done()).containsExactly(at("t", 2, 12));
        assertThat(s.committed()).containsExactly(Map.entry(new Qos2Ledger.Queue("t", 2), 9L));
        assertThat(s.inbound()).containsExactly(new Qos2Ledger.Inbound(5, "ABC", "t"));
    }
}
