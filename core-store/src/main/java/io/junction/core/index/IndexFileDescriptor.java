package io.junction.core.index;

/**
 * Layout of an index file: a header, a hash-slot table, then entries chained newest-first per slot.
 *
 * <pre>
 * header (48 bytes)
 *   0  magic int32        4  slot count int32     8  entry capacity int32   12 entry count int32
 *  16  begin timestamp int64 (ms)                 24  end timestamp int64 (ms)
 *  32  first log offset int64                     40  last log offset int64
 * slots: slot count x int32 — number of the newest entry in the slot, plus one (0 = empty)
 * entries: capacity x 20 bytes
 *   0  key hash int32     4  log offset int64     12 seconds since begin int32   16 previous entry + 1 int32
 * </pre>
 */
final class IndexFileDescriptor {
    static final int MAGIC = 0x4A4E4958;
    static final int HEADER_LENGTH = 48;
    static final int MAGIC_OFFSET = 0;
    static final int SLOT_COUNT_OFFSET = 4;
    static final int CAPACITY_OFFSET = 8;
    static final int COUNT_OFFSET = 12;
    static final int BEGIN_TIMESTAMP_OFFSET = 16;
    static final int END_TIMESTAMP_OFFSET = 24;
    static final int FIRST_LOG_OFFSET_OFFSET = 32;
    static final int LAST_LOG_OFFSET_OFFSET = 40;

    static final int SLOT_LENGTH = 4;
    static final int ENTRY_LENGTH = 20;
    static final int ENTRY_HASH_OFFSET = 0;
    static final int ENTRY_LOG_OFFSET_OFFSET = 4;
    static final int ENTRY_TIME_OFFSET = 12;
    static final int ENTRY_PREVIOUS_OFFSET = 16;

    private IndexFileDescriptor() {
    }

    static long fileLength(final int slots, final int capacity) {
        return HEADER_LENGTH + (long) slots * SLOT_LENGTH + (long) capacity * ENTRY_LENGTH;
    }

    static int slotPosition(final int slot) {
        return HEADER_LENGTH + slot * SLOT_LENGTH;
    }

    static int entryPosition(final int slots, final int entry) {
        return HEADER_LENGTH + slots * SLOT_LENGTH + entry * ENTRY_LENGTH;
    }
}
