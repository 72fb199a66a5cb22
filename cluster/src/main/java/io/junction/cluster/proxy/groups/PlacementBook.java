package io.junction.cluster.proxy.groups;

import io.junction.core.Messaging;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Topic placements, kept in the metadata group's replicated key-value configs (namespace {@value #NAMESPACE}, key =
 * topic, value = {@link TopicPlacement#format()}): replicated by its Raft log and mirrored to every proxy with the rest
 * of the metadata, no operation of their own. Reads come from the mirror (memory), parsed once per text.
 */
final class PlacementBook {
    static final String NAMESPACE = "junction.cluster.placement";
    private static final Logger LOG = LoggerFactory.getLogger(PlacementBook.class);

    private final Messaging.KvConfigs kv;
    private final Map<String, Parsed> parsed = new ConcurrentHashMap<>();

    private record Parsed(String text, TopicPlacement placement) {
    }

    PlacementBook(final Messaging.KvConfigs kv) {
        this.kv = kv;
    }

    /** The topic's placement, or null when it has none (it lives wholly on the metadata group). */
    TopicPlacement get(final String topic) {
        return read(topic).placement();
    }

    /**
     * The topic's placement with the text it was read from (null text: none kept), the version a conditional write
     * ({@link #replace}) names.
     */
    Versioned read(final String topic) {
        final String text = kv.get(NAMESPACE, topic).orElse(null);
        return new Versioned(text, text == null ? null : parse(topic, text));
    }

    /** A placement and the text kept for it ({@code text} null: none kept; {@code placement} null: none readable). */
    record Versioned(String text, TopicPlacement placement) {
    }

    private TopicPlacement parse(final String topic, final String text) {
        final Parsed known = parsed.get(topic);
        if (known != null && known.text().equals(text)) {
            return known.placement();
        }
        try {
            final TopicPlacement placement = TopicPlacement.parse(topic, text);
            parsed.put(topic, new Parsed(text, placement));
            return placement;
        } catch (IllegalArgumentException e) {
            // Written by nobody but proxies; a garbled one is served as "no placement" rather than failing every call.
            LOG.warn("Placement of topic {} is unreadable ({}): serving it from the metadata group", topic,
                    e.getMessage());
            return null;
        }
    }

    /**
     * Writes {@code after} only while the topic's placement is still the text {@code expected} (null: none kept),
     * checked by the metadata group's leader; false, nothing written, when another proxy changed it meanwhile.
     */
    CompletableFuture<Boolean> replace(final String expected, final TopicPlacement after) {
        return kv.replace(NAMESPACE, after.topic(), expected, after.format());
    }

    CompletableFuture<Boolean> delete(final String topic) {
        parsed.remove(topic);
        return kv.delete(NAMESPACE, topic);
    }

    /** Every placement's text by topic. */
    SortedMap<String, String> texts() {
        return kv.list(NAMESPACE);
    }
}
