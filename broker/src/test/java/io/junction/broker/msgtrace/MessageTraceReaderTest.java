package io.junction.broker.msgtrace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.junction.broker.msgtrace.MessageTraceReader.TraceEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Trace records decode back into the events the writer encoded, for the asked id only. */
class MessageTraceReaderTest {

    @Test
    void shouldDecodeEachEventTheWriterEncodes() {
        final String text = TraceRecords.pub(1000, "amqp", "orders", "ID:1", "tagA", "k1", "10.0.0.1:5672", 12, 3,
                TraceRecords.NORMAL, "0A000001000000000000002A", true)
                + TraceRecords.subBefore(2000, "billing", "req-1", "ID:1", 2, "k1")
                + TraceRecords.subAfter("req-1", "ID:1", 7, false, "k1", TraceRecords.FAILED, 3000);
        final List<TraceEvent> events = new ArrayList<>();

        MessageTraceReader.decode(text, "ID:1", events);

        assertThat(events).containsExactly(
                new TraceEvent("Pub", 1000, "amqp", "orders", "10.0.0.1:5672", 3, true, 0),
                new TraceEvent("SubBefore", 2000, "billing", "", "", -1, true, 2),
                new TraceEvent("SubAfter", 3000, "", "", "", 7, false, 0));
    }

    @Test
    void shouldSkipOtherIdsAndGarbledRecords() {
        final String text = TraceRecords.subBefore(2000, "billing", "req-1", "ID:other", 0, null)
                + "Pub\u0001not-a-number\u0001x\u0002"
                + "Unknown\u0001ID:1\u0002"
                + TraceRecords.subBefore(2500, "billing", "req-2", "ID:1", 0, null);
        final List<TraceEvent> events = new ArrayList<>();

        MessageTraceReader.decode(text, "ID:1", events);

        assertThat(events).extracting(TraceEvent::type, TraceEvent::timestamp)
                .containsExactly(tuple("SubBefore", 2500L));
    }
}
