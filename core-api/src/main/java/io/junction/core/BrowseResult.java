package io.junction.core;

import io.junction.core.message.StoredMessage;
import java.util.List;

/**
 * What a browse found: messages in queue order (queue by queue), and where the next browse of the enumeration goes on.
 *
 * @param positions the next offset to look at in each queue (pass it to the next {@link BrowseRequest})
 * @param end       true when every queue was looked at up to its end: nothing is left to enumerate for now
 */
public record BrowseResult(List<StoredMessage> messages, long[] positions, boolean end) {
    public BrowseResult {
        messages = List.copyOf(messages);
        positions = positions.clone();
    }
}
