package io.junction.core.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.junction.core.log.RecordCodec;
import io.junction.core.message.StoredMessage;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * Arbitrary bytes at a log position are either refused by the record check or decode completely: the check is the
 * only gate between the disk and the decoder, so it must never pass bytes the decoder cannot read.
 */
@Tag("fuzz")
class RecordDecoderFuzzTest {
    @Timeout(1) // while fuzzing: an input that takes over a second is a hang finding (see junit-platform.properties)
    @FuzzTest(maxDuration = "10m")
    void checkThenDecode(final FuzzedDataProvider data) {
        final long position = data.consumeLong(0, Long.MAX_VALUE / 2);
        final ByteBuffer bytes = ByteBuffer.wrap(data.consumeRemainingAsBytes());
        // The weaker gate, without the CRC (what reads of this run's own records use): the CRC only refuses more.
        final int size = RecordCodec.check(bytes, 0, position, false);
        if (size > 0) {
            final StoredMessage m = RecordCodec.decode(bytes.duplicate().limit(size));
            if (m.commitLogOffset() != position || m.size() != size) {
                throw new IllegalStateException("checked record decodes to other fields");
            }
            RecordCodec.dispatchInfo(bytes, 0);
        }
    }
}
