package io.junction.kafka;

import java.util.List;
import org.apache.kafka.common.header.Header;

/**
 * One Kafka record as the mapping sees it, independent of batches and offsets.
 *
 * @param key       the key, or null
 * @param value     the value, or null (a tombstone)
 * @param timestamp the record's timestamp (create time), epoch ms
 * @param headers   headers in order; names may repeat and values may be null
 */
record KafkaRecord(byte[] key, byte[] value, long timestamp, List<Header> headers) {

    KafkaRecord {
        headers = List.copyOf(headers);
    }
}
