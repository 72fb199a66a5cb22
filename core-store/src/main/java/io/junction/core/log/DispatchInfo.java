package io.junction.core.log;

/**
 * What the dispatcher needs from a record to index it: where it belongs and the properties that are indexed
 * (read without decoding the rest of the property string).
 */
public record DispatchInfo(
        String topic,
        int queueId,
        long queueOffset,
        long physicalOffset,
        int size,
        long storeTimestamp,
        int sysFlag,
        String tag,
        String keys,
        String uniqueId) {
}
