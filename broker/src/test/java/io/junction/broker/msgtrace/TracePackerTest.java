package io.junction.broker.msgtrace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.junction.broker.msgtrace.MessageTraceReader.TraceEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Packed trace messages decode back into each traced message's events, and respect the size limits. */
class TracePackerTest {

    private static final String TOPIC = MessageTraceWriter.DEFAULT_TOPIC;

    @Test
    void shouldPackRecordsOfManyMessagesSoEachIdDecodesItsOwnEvents() {
        final List<TracePacker.Entry> entries = List.of(
                entry(TraceRecords.pub(1000, "mqtt", "orders", "ID:1", "null", "k1", "h:1", 3, 1, 0, "off1", true),
                        "ID:1", "k1"),
                entry(TraceRecords.pub(1001, "amqp", "orders", "ID:2", "null", null, "h:1", 4, 1, 0, "off2", true),
                        "ID:2", null),
                entry(TraceRecords.subBefore(1002, "billing", "req-1", "ID:1", 0, "k1"), "ID:1", "k1"),
                entry(TraceRecords.subAfter("req-1", "ID:1", 5, true, "k1", TraceRecords.CONSUMED, 1007),
                        "ID:1", "k1"));

        final TracePacker.Packed packed = TracePacker.pack(entries, 0);

        assertThat(packed.records()).isEqualTo(4);
        assertThat(packed.traceTopic()).isEqualTo(TOPIC);
        assertThat(packed.keys().split(" ")).containsExactly("ID:1", "k1", "ID:2"); // each once
        final String body = new String(packed.body(), StandardCharsets.UTF_8);
        final List<TraceEvent> first = new ArrayList<>();
        MessageTraceReader.decode(body, "ID:1", first);
        assertThat(first).extracting(TraceEvent::type).containsExactly("Pub", "SubBefore", "SubAfter");
        assertThat(first.get(0).group()).isEqualTo("mqtt");
        final List<TraceEvent> second = new ArrayList<>();
        MessageTraceReader.decode(body, "ID:2", second);
        assertThat(second).extracting(TraceEvent::type, TraceEvent::group)
                .containsExactly(tuple("Pub", "amqp"));
        assertThat(TracePacker.pack(entries, 4)).isNull();
    }

    @Test
    void shouldSplitWhereTheKeysWouldOutgrowThePropertyString() {
        final List<TracePacker.Entry> entries = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            final String id = String.format("%032X", i);
            entries.add(entry(TraceRecords.subBefore(i, "g", "r" + i, id, 0, null), id, null));
        }

        final List<TracePacker.Packed> packs = packAll(entries);

        assertThat(packs).hasSizeGreaterThan(1);
        assertThat(packs).allSatisfy(p -> assertThat(p.keys().length()).isLessThanOrEqualTo(
                TracePacker.MAX_KEYS_CHARS));
        assertThat(packs.stream().mapToInt(TracePacker.Packed::records).sum()).isEqualTo(2000);
        final List<String> keys = packs.stream().flatMap(p -> Arrays.stream(p.keys().split(" "))).toList();
        assertThat(keys).hasSize(2000).doesNotHaveDuplicates();
    }

    @Test
    void shouldSplitWhereTheBodyWouldOutgrowItsLimit() {
        final String bigKeys = "k".repeat(10);
        final List<TracePacker.Entry> entries = new ArrayList<>();
        final String longTopic = "t".repeat(10_000); // a record of ~10 KB
        for (int i = 0; i < 30; i++) {
            entries.add(entry(TraceRecords.pub(i, "g", longTopic, "ID:" + i, "null", bigKeys, "h:1", 1, 0, 0, "o",
                    true), "ID:" + i, bigKeys));
        }

        final List<TracePacker.Packed> packs = packAll(entries);

        assertThat(packs).hasSize(3);
        assertThat(packs).allSatisfy(p -> assertThat(p.body().length).isLessThanOrEqualTo(
                TracePacker.MAX_BODY_CHARS));
        assertThat(packs.stream().mapToInt(TracePacker.Packed::records).sum()).isEqualTo(30);
    }

    @Test
    void shouldKeyARecordWhoseOwnKeysAreTooLongByItsIdAlone() {
        final String huge = "x".repeat(TracePacker.MAX_KEYS_CHARS + 1);
        final TracePacker.Packed packed = TracePacker.pack(List.of(
                entry(TraceRecords.subBefore(1, "g", "r", "ID:9", 0, huge), "ID:9", huge)), 0);

        assertThat(packed.records()).isEqualTo(1);
        assertThat(packed.keys()).isEqualTo("ID:9");
    }

    @Test
    void shouldStopAPackAtAnotherTraceTopic() {
        final List<TracePacker.Entry> entries = List.of(
                entry(TraceRecords.subBefore(1, "g", "r1", "ID:1", 0, null), "ID:1", null),
                TracePacker.Entry.of("custom-trace", TraceRecords.subBefore(2, "g", "r2", "ID:2", 0, null), "ID:2",
                        null));

        final List<TracePacker.Packed> packs = packAll(entries);

        assertThat(packs).extracting(TracePacker.Packed::traceTopic, TracePacker.Packed::keys).containsExactly(
                tuple(TOPIC, "ID:1"),
                tuple("custom-trace", "ID:2"));
    }

    @Test
    void shouldLeaveOutARecordWhoseTextCannotBeWrittenAndKeepTheOthers() {
        final List<TracePacker.Entry> entries = List.of(
                entry(TraceRecords.subBefore(1, "g", "r1", "ID:1", 0, null), "ID:1", null),
                new TracePacker.Entry(TOPIC, out -> {
                    out.append("half a record");
                    throw new IllegalStateException("a formatting bug");
                }, "ID:2", null),
                entry(TraceRecords.subBefore(3, "g", "r3", "ID:3", 0, null), "ID:3", null));

        final TracePacker.Packed packed = TracePacker.pack(entries, 0);

        assertThat(packed.records()).isEqualTo(3);
        assertThat(packed.unwritable()).isEqualTo(1);
        assertThat(packed.written()).isEqualTo(2);
        assertThat(packed.keys()).isEqualTo("ID:1 ID:3");
        assertThat(new String(packed.body(), StandardCharsets.UTF_8)).doesNotContain("half a record")
                .isEqualTo(TraceRecords.subBefore(1, "g", "r1", "ID:1", 0, null)
                        + TraceRecords.subBefore(3, "g", "r3", "ID:3", 0, null));
    }

    private static List<TracePacker.Packed> packAll(final List<TracePacker.Entry> entries) {
        final List<TracePacker.Packed> packs = new ArrayList<>();
        int from = 0;
        TracePacker.Packed p;
        while ((p = TracePacker.pack(entries, from)) != null) {
            packs.add(p);
            from += p.records();
        }
        return packs;
    }

    private static TracePacker.Entry entry(final String data, final String msgId, final String keys) {
        return TracePacker.Entry.of(TOPIC, data, msgId, keys);
    }
}
