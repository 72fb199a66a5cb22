package io.junction.core.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class OpRecordTest {
    @Test
    void shouldRoundTripEveryType() {
        for (OpRecord.Type type : OpRecord.Type.values()) {
            final OpRecord op = new OpRecord(type, 1L << 40, 7, 1_700_000_000_123L);
            final byte[] bytes = op.encode();
            assertThat(bytes).hasSize(OpRecord.LENGTH);
            assertThat(OpRecord.decode(ByteBuffer.wrap(bytes))).isEqualTo(op);
        }
    }

    @Test
    void shouldDecodeFromAViewAtAnOffset() {
        final byte[] op = new OpRecord(OpRecord.Type.CHECK, 42, 3, 99).encode();
        final ByteBuffer buf = ByteBuffer.allocate(op.length + 10);
        buf.position(10);
        buf.put(op);
        buf.position(10);
        assertThat(OpRecord.decode(buf)).isEqualTo(new OpRecord(OpRecord.Type.CHECK, 42, 3, 99));
    }

    @Test
    void shouldRejectWhatIsNotAnOpRecord() {
        assertThat(OpRecord.decode(ByteBuffer.wrap(new byte[5]))).isNull();
        final byte[] wrongVersion = new OpRecord(OpRecord.Type.COMMIT, 1, 0, 0).encode();
        wrongVersion[OpRecord.VERSION_OFFSET] = 9;
        assertThat(OpRecord.decode(ByteBuffer.wrap(wrongVersion))).isNull();
        final byte[] wrongType = new OpRecord(OpRecord.Type.COMMIT, 1, 0, 0).encode();
        wrongType[OpRecord.TYPE_OFFSET] = 0;
        assertThat(OpRecord.decode(ByteBuffer.wrap(wrongType))).isNull();
    }

    @Test
    void shouldCloseOnlyForCommitAndRollback() {
        assertThat(new OpRecord(OpRecord.Type.COMMIT, 0, 0, 0).closes()).isTrue();
        assertThat(new OpRecord(OpRecord.Type.ROLLBACK, 0, 0, 0).closes()).isTrue();
        assertThat(new OpRecord(OpRecord.Type.CHECK, 0, 0, 0).closes()).isFalse();
    }
}
