package io.junction.kafka;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.header.Header;

/**
 * A stored message as a consumer fetches it (see {@link KafkaMessageMapping#fetched}): its value is a view of the
 * stored body, copied only once, into the response.
 *
 * @param offset    the queue offset, the record's Kafka offset
 * @param timestamp the record's timestamp (create time), epoch ms
 * @param key       the key, or null
 * @param value     the value (read from its position to its limit), or null for a tombstone
 * @param headers   headers in order
 */
record FetchedRecord(long offset, long timestamp, byte[] key, ByteBuffer value, List<Header> headers) {
}
