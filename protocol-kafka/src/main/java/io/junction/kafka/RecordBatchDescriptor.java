package io.junction.kafka;

/**
 * The Kafka record batch (magic 2) as {@link FetchedBatch} writes it: a fixed header, then the records.
 *
 * <pre>
 * offset  field                   type    value
 *      0  base offset             int64   the first record's offset
 *      8  batch length            int32   bytes after this field
 *     12  partition leader epoch  int32   -1
 *     16  magic                   int8    2
 *     17  CRC32C                  uint32  over attributes .. end of the batch
 *     21  attributes              int16   0
 *     23  last offset delta       int32   last record's offset - base offset
 *     27  base timestamp          int64   the first record's timestamp
 *     35  max timestamp           int64   the largest record timestamp
 *     43  producer id             int64   -1
 *     51  producer epoch          int16   -1
 *     53  base sequence           int32   -1
 *     57  record count            int32
 *     61  records
 * </pre>
 *
 * <p>Attributes 0: no compression, create-time timestamps, not transactional, not a control batch. Each record is:
 * length (varint, of what follows), attributes (int8, 0), timestamp delta from the base timestamp (varlong), offset
 * delta from the base offset (varint), key length (varint, -1 for null) and key, value length (varint, -1 for null)
 * and value, header count (varint), and per header its UTF-8 name length (varint) and name, value length (varint, -1
 * for null) and value. Varints are zig-zag encoded, as in protobuf.
 */
final class RecordBatchDescriptor {
    static final int BASE_OFFSET_OFFSET = 0;
    static final int LENGTH_OFFSET = 8;
    static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    static final int MAGIC_OFFSET = 16;
    static final int CRC_OFFSET = 17;
    static final int ATTRIBUTES_OFFSET = 21;
    static final int LAST_OFFSET_DELTA_OFFSET = 23;
    static final int BASE_TIMESTAMP_OFFSET = 27;
    static final int MAX_TIMESTAMP_OFFSET = 35;
    static final int PRODUCER_ID_OFFSET = 43;
    static final int PRODUCER_EPOCH_OFFSET = 51;
    static final int BASE_SEQUENCE_OFFSET = 53;
    static final int RECORD_COUNT_OFFSET = 57;
    /** Bytes before the first record. */
    static final int HEADER_LENGTH = 61;
    /** What the batch length counts from (the partition leader epoch on). */
    static final int LENGTH_FROM = PARTITION_LEADER_EPOCH_OFFSET;

    static final byte MAGIC = 2;
    static final int NO_PARTITION_LEADER_EPOCH = -1;
    static final long NO_PRODUCER_ID = -1;
    static final short NO_PRODUCER_EPOCH = -1;
    static final int NO_SEQUENCE = -1;

    private RecordBatchDescriptor() {
    }
}
