package io.junction.broker.msgtrace;

import io.junction.core.Messaging;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Finds a message's trace as RocketMQ's tools do ({@code queryMsgTraceById}): the trace topic's records keyed by the
 * message id, decoded from the {@link TraceRecords} text (a record may hold several events: clients batch them), the
 * events of that id only, oldest first. Works for records RocketMQ clients wrote and for those the broker wrote.
 */
public final class MessageTraceReader {

    /** The most trace records one lookup reads. */
    public static final int MAX_RECORDS = 100;

    private final Messaging core;

    public MessageTraceReader(final Messaging core) {
        this.core = core;
    }

    /**
     * One decoded event.
     *
     * @param type      {@code Pub}, {@code SubBefore} or {@code SubAfter}
     * @param timestamp epoch ms of the event (a {@code SubAfter} from an old client may carry none: 0)
     * @param group     producer or consumer group ({@code SubAfter} has none: empty)
     * @param host      the store host of a {@code Pub}, else empty
     * @param costMs    send or consume time, -1 when the event has none
     * @param success   whether the send or the consumption succeeded ({@code SubBefore}: true)
     * @param retries   the delivery's retry count ({@code SubBefore}), else 0
     */
    public record TraceEvent(String type, long timestamp, String group, String topic, String host, long costMs,
                             boolean success, int retries) {
    }

    /** The trace topic of {@code topic}: its {@code trace.topic} attribute, else RocketMQ's default. */
    public String traceTopic(final String topic) {
        return core.route(topic).map(TopicConfig::attributes)
                .map(a -> a.getOrDefault(MessageTraceWriter.TOPIC_ATTRIBUTE, MessageTraceWriter.DEFAULT_TOPIC))
                .orElse(MessageTraceWriter.DEFAULT_TOPIC);
    }

    /** The events recorded for {@code msgId} in {@code traceTopic}, oldest first. */
    public CompletableFuture<List<TraceEvent>> find(final String traceTopic, final String msgId) {
        if (core.route(traceTopic).isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        return core.queryByKey(traceTopic, msgId, MAX_RECORDS, 0, Long.MAX_VALUE).thenApply(records -> {
            final List<TraceEvent> events = new ArrayList<>();
            for (final StoredMessage m : records) {
                decode(new String(m.bodyBytes(), StandardCharsets.UTF_8), msgId, events);
            }
            events.sort(Comparator.comparingLong(TraceEvent::timestamp));
            return events;
        });
    }

    /** Decodes every event of {@code text} about {@code msgId} into {@code out}; malformed events are skipped. */
    static void decode(final String text, final String msgId, final List<TraceEvent> out) {
        for (final String record : text.split(String.valueOf(TraceRecords.FIELD))) {
            final String[] f = record.split(String.valueOf(TraceRecords.CONTENT), -1);
            try {
                switch (f[0]) {
                    case "Pub" -> {
                        if (f.length >= 14 && msgId.equals(f[5])) {
                            out.add(new TraceEvent("Pub", Long.parseLong(f[1]), f[3], f[4], f[8],
                                    Long.parseLong(f[10]), Boolean.parseBoolean(f[13]), 0));
                        }
                    }
                    case "SubBefore" -> {
                        if (f.length >= 8 && msgId.equals(f[5])) {
                            out.add(new TraceEvent("SubBefore", Long.parseLong(f[1]), f[3], "", "", -1, true,
                                    Integer.parseInt(f[6])));
                        }
                    }
                    case "SubAfter" -> {
                        if (f.length >= 5 && msgId.equals(f[2])) {
                            out.add(new TraceEvent("SubAfter", f.length >= 8 ? Long.parseLong(f[7]) : 0, "", "",
                                    "", Long.parseLong(f[3]), Boolean.parseBoolean(f[4]), 0));
                        }
                    }
                    default -> {
                        // not an event type RocketMQ writes (or the empty tail after the last separator)
                    }
                }
            } catch (final NumberFormatException e) {
                // a record some other writer garbled: skip it, as RocketMQ's decoder does not fail the query either
            }
        }
    }
}
