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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * Recovery over a log damaged anywhere: it never throws, takes nothing for a record that was not written as one, keeps
 * every record no damage touched (damage in the middle is stepped over, not taken for the log's end) up to one that
 * looks unwritten (zero size or magic), ends the log after the last valid record, and leaves a log that recovers to the same end again.
 */
@Tag("fuzz")
class RecoveryScanFuzzTest {
    private static final int SEGMENT = 64 * 1024;
    private static final InetSocketAddress HOST = new InetSocketAddress("127.0.0.1", 9876);

    @Timeout(1) // while fuzzing: an input that takes over a second is a hang finding (see junit-platform.properties)
    @FuzzTest(maxDuration = "10m")
    void recoverDamagedLog(final FuzzedDataProvider data) throws IOException {
        final Path dir = Files.createTempDirectory("recovery-fuzz");
        try {
            final int records = data.consumeInt(1, 40);
            final List<Long> ends = new ArrayList<>();
            long end = 0;
            try (FileChannel ch = FileChannel.open(dir.resolve(String.format("%020d", 0)), StandardOpenOption.CREATE,
                    StandardOpenOption.READ, StandardOpenOption.WRITE)) {
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
                final List<long[]> damaged = new ArrayList<>(); // [from, to) byte ranges written over
                for (int d = 0; d < damages; d++) {
                    final long at = data.consumeLong(0, end + 64);
                    final byte[] garbage = data.consumeBytes(16);
                    ch.write(ByteBuffer.wrap(garbage), at);
                    damaged.add(new long[] {at, at + garbage.length});
                }
                final List<Long> visited = new ArrayList<>();
                final long recovered;
                try (CommitLog log = CommitLog.open(dir, SEGMENT, MappedSegmentFile.FACTORY)) {
                    recovered = log.recover(0, SEGMENT, (view, pos, size) -> visited.add((long) pos + size));
                }
                if (!ends.containsAll(visited)) {
                    throw new IllegalStateException("recovery took something for a record that was not one: "
                            + visited + " vs " + ends);
                }
                final long lastVisited = visited.isEmpty() ? 0 : visited.get(visited.size() - 1);
                if (recovered != lastVisited) {
                    throw new IllegalStateException("recovered end " + recovered + " is not the end of the last valid"
                            + " record " + lastVisited);
                }
                // Damage in the middle is stepped over: every record no damage touched is kept, up to a record whose
                // size or magic now reads zero (what an unfinished write leaves: the log's end).
                long start = 0;
                for (long e : ends) {
                    final ByteBuffer header = ByteBuffer.allocate(8);
                    ch.read(header, start);
                    if (header.getInt(0) == 0 || header.getInt(4) == 0) {
                        break;
                    }
                    if (untouched(start, e, damaged) && !visited.contains(e)) {
                        throw new IllegalStateException("lost an intact record " + start + ".." + e + " (recovered "
                                + recovered + ", damage " + ranges(damaged) + ")");
                    }
                    start = e;
                }
                try (CommitLog again = CommitLog.open(dir, SEGMENT, MappedSegmentFile.FACTORY)) {
                    if (again.recover(0, SEGMENT, (view, pos, size) -> { }) != recovered) {
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

    private static boolean untouched(final long from, final long to, final List<long[]> damaged) {
        for (long[] d : damaged) {
            if (d[0] < to && d[1] > from) {
                return false;
            }
        }
        return true;
    }

    private static String ranges(final List<long[]> damaged) {
        return damaged.stream().map(d -> d[0] + ".." + d[1]).toList().toString();
    }
}
