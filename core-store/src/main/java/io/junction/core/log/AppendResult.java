package io.junction.core.log;

/**
 * Where an appended record landed.
 *
 * @param physicalOffset the record's log offset
 * @param size           its length in bytes
 * @param queueOffset    its offset in its queue
 * @param storeTimestamp when it was stored
 */
public record AppendResult(long physicalOffset, int size, long queueOffset, long storeTimestamp) {
}
