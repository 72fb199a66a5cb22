package io.junction.core.meta;

import io.junction.core.StoreError;
import io.junction.core.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * A small file replaced atomically: written to a temporary file, forced, renamed over the old one, and the directory
 * forced, so a crash leaves either the old or the new content, never a mix.
 *
 * <pre>
 * +----------------+----------------+----------------+-------------------+----------------+
 * | magic "JNCM"   | version int32  | length int32   | payload bytes     | CRC32C int32   |
 * +----------------+----------------+----------------+-------------------+----------------+
 * </pre>
 * The CRC covers version, length and payload. A file that fails the check is reported, never guessed at.
 */
public final class MetadataFile {
    static final int MAGIC = 0x4A4E434D;
    static final int HEADER_LENGTH = 12;
    static final int TRAILER_LENGTH = 4;

    private final Path file;
    private final int version;

    public MetadataFile(final Path file, final int version) {
        this.file = file;
        this.version = version;
    }

    public Path path() {
        return file;
    }

    /**
     * The payload, or empty when the file does not exist.
     *
     * @throws StoreException (IO_ERROR) when the file is unreadable, corrupt or of another version
     */
    public Optional<ByteBuffer> read() {
        final byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new StoreException(StoreError.IO_ERROR, "cannot read " + file + ": " + e.getMessage(), e);
        }
        final ByteBuffer buf = ByteBuffer.wrap(bytes);
        if (bytes.length < HEADER_LENGTH + TRAILER_LENGTH || buf.getInt(0) != MAGIC) {
            throw corrupt("not a Junction metadata file");
        }
        final int fileVersion = buf.getInt(4);
        final int length = buf.getInt(8);
        if (length < 0 || length != bytes.length - HEADER_LENGTH - TRAILER_LENGTH) {
            throw corrupt("length field " + length + " does not match the file size " + bytes.length);
        }
        final CRC32C crc = new CRC32C();
        crc.update(bytes, 4, HEADER_LENGTH - 4 + length);
        if ((int) crc.getValue() != buf.getInt(HEADER_LENGTH + length)) {
            throw corrupt("checksum mismatch");
        }
        if (fileVersion != version) {
            throw corrupt("format version " + fileVersion + ", expected " + version);
        }
        return Optional.of(ByteBuffer.wrap(bytes, HEADER_LENGTH, length).slice());
    }

    /** Replaces the file's content with {@code payload} durably and atomically. */
    public void write(final byte[] payload) throws IOException {
        final ByteBuffer buf = ByteBuffer.allocate(HEADER_LENGTH + payload.length + TRAILER_LENGTH);
        buf.putInt(MAGIC).putInt(version).putInt(payload.length).put(payload);
        final CRC32C crc = new CRC32C();
        crc.update(buf.array(), 4, HEADER_LENGTH - 4 + payload.length);
        buf.putInt((int) crc.getValue()).flip();
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
        forceDirectory(file.toAbsolutePath().getParent());
    }

    /** Forces a directory so a rename or a new file in it survives a crash. */
    public static void forceDirectory(final Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    private StoreException corrupt(final String why) {
        return new StoreException(StoreError.IO_ERROR, "corrupt metadata file " + file + ": " + why
                + " (restore it from a backup or remove it to start without that metadata)");
    }
}
