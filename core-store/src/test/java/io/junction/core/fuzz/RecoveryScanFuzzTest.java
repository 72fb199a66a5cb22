package io.junction.core.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.junction.core.io.MappedSegmentFile;
import io.junction.core.log.CommitLog;
import io.junction.core.log.RecordCodec;
import io.junction.core.message.Message;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Recovery over a log damaged anywhere: it never throws, never ends the log past the last intact record, keeps every
 * record before the first damaged byte, and leaves a log that recovers to the same end again.
 */
class RecoveryScanFuzzTest {
    private static final int SEGMENT = 64 * 1024;
    private static final InetSocketAddress HOST = new InetSocketAddress("127.0.0.1", 9876);

    @FuzzTest(maxDuration = "10m")
    void recoverDamagedLog(final FuzzedDataProvider data) throws IOException {
        final Path dir = Files.createTempDirectory("recovery-fuzz");
        try {
            final int records = data.consumeInt(1, 40);
            final List<Long> ends = new ArrayList<>();
            long end = 0;
            try (FileChannel ch = FileChannel.open(dir.resolve(String.format("%020d", 0)), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.allocate(1), SEGMENT - 1);
                for (int i = 0; i < records; i++) {
                    final ByteBuffer r = RecordCodec.encode(Message.builder("t").body(new byte[data.consumeInt(0, 900)])
                            .tag("x" + i).build(), HOST);
                    if (end + r.remaining() + 8 > SEGMENT) {
                        break;
                    }
                    RecordCodec.seal(r, 0, i, end, 1000 + i, 0);
                    ch.write(r, end);
                    end += r.limit();
                    ends.add(end);
                }
                final int damages = data.consumeInt(0, 4);
                long firstDamage = Long.MAX_VALUE;
                for (int d = 0; d < damages; d++) {
                    final long at = data.consumeLong(0, end + 64);
                    final byte[] garbage = data.consumeBytes(16);
                    ch.write(ByteBuffer.wrap(garbage), at);
                    if (garbage.length > 0) {
                        firstDamage = Math.min(firstDamage, at);
                    }
                }
                final long recovered;
                try (CommitLog log = CommitLog.open(dir, SEGMENT, MappedSegmentFile.FACTORY)) {
                    recovered = log.recover(0, (view, pos, size) -> { });
                }
                if (recovered > end && firstDamage > end) {
                    throw new IllegalStateException("recovered past the last record: " + recovered + " > " + end);
                }
                for (long e : ends) {
                    if (e <= firstDamage && recovered < e) {
                        throw new IllegalStateException("lost an intact record ending at " + e + " (recovered "
                                + recovered + ", first damage at " + firstDamage + ")");
                    }
                }
                try (CommitLog again = CommitLog.open(dir, SEGMENT, MappedSegmentFile.FACTORY)) {
                    if (again.recover(0, (view, pos, size) -> { }) != recovered) {
                        throw new IllegalStateException("a second recovery disagrees");
                    }
                }
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
