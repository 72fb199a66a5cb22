package io.junction.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.engine.MessageStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** What replicas' logs hold: the commit-log bytes two replicas share, and the bytes a Raft log's entries take. */
final class ReplicaLogs {

    private ReplicaLogs() {
    }

    /** Both logs hold the same bytes up to {@code expected}'s end. */
    static void assertSameLog(final MessageStore expected, final MessageStore replica) throws IOException {
        final long end = expected.logEnd();
        assertThat(replica.logEnd()).isGreaterThanOrEqualTo(end);
        long at = 0;
        while (at < end) {
            final ByteBuffer want = expected.copyLog(at, end, 1 << 20);
            final ByteBuffer actual = replica.copyLog(at, at + want.remaining(), 1 << 20);
            assertThat(actual).as("log bytes at %d", at).isEqualTo(want);
            at += want.remaining();
        }
    }

    /**
     * The bytes of entries in the Raft log segments under {@code raft}: each file up to its last non-zero byte (Ratis
     * preallocates segment files with zeros, so their size says little).
     */
    static long raftLogContentBytes(final Path raft) throws IOException {
        final List<Path> segments;
        try (Stream<Path> files = Files.walk(raft)) {
            segments = files.filter(Files::isRegularFile).filter(p -> p.getFileName().toString().startsWith("log_"))
                    .toList();
        }
        assertThat(segments).isNotEmpty();
        long total = 0;
        for (Path segment : segments) {
            total += contentLength(segment);
        }
        return total;
    }

    private static long contentLength(final Path file) throws IOException {
        long last = -1;
        long at = 0;
        final byte[] chunk = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(chunk)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (chunk[i] != 0) {
                        last = at + i;
                    }
                }
                at += n;
            }
        }
        return last + 1;
    }
}
