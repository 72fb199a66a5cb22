package io.junction.core.log;

import java.util.Map;

/**
 * What the dispatcher needs from a record to index it: where it belongs and the properties that are indexed.
 */
public record DispatchInfo(
        String topic,
        int queueId,
        long queueOffset,
        long physicalOffset,
        int size,
        long storeTimestamp,
        int sysFlag,
        Map<String, String> properties) {
}
