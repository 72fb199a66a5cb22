package io.junction.remoting.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.FastThreadLocal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** The two header serializations: JSON (type 0) and ROCKETMQ binary (type 1), both ways. */
public final class HeaderCodec {
    /** Fixed part of a ROCKETMQ header: code, language, version, opaque, flag, remark length, ext length. */
    static final int BINARY_FIXED_LENGTH = 2 + 1 + 2 + 4 + 4 + 4 + 4;

    /** Room for a JSON header while it is read; a header longer than the cap gets an array of its own. */
    private static final int KEEP_SCRATCH_AT_MOST = 64 * 1024;
    private static final FastThreadLocal<byte[]> JSON_SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[1024];
        }
    };

    private HeaderCodec() {
    }

    /** Decodes {@code length} header bytes of the given type into a new command. */
    public static RemotingCommand decode(final SerializeType type, final ByteBuf in, final int length) {
        final RemotingCommand cmd = new RemotingCommand().serializeType(type);
        if (type == SerializeType.JSON) {
            // The reader keeps strings, not the bytes: one array per thread serves every header.
            byte[] bytes = JSON_SCRATCH.get();
            if (bytes.length < length) {
                bytes = new byte[Math.max(length, bytes.length * 2)];
                if (bytes.length <= KEEP_SCRATCH_AT_MOST) {
                    JSON_SCRATCH.set(bytes);
                }
            }
            in.readBytes(bytes, 0, length);
            JsonHeaderReader.read(cmd, bytes, length);
        } else {
            decodeBinary(cmd, in.readSlice(length));
        }
        return cmd;
    }

    private static void decodeBinary(final RemotingCommand cmd, final ByteBuf in) {
        if (in.readableBytes() < BINARY_FIXED_LENGTH) {
            throw new HeaderException("ROCKETMQ header shorter than " + BINARY_FIXED_LENGTH + " bytes");
        }
        cmd.code(in.readShort());
        cmd.language(LanguageCode.name(in.readByte()));
        cmd.version(in.readShort());
        cmd.opaque(in.readInt());
        cmd.flag(in.readInt());
        cmd.remark(readString(in, in.readInt(), "remark"));
        final int extLength = in.readInt();
        if (extLength < 0 || extLength > in.readableBytes()) {
            throw new HeaderException("ROCKETMQ header ext length " + extLength + " exceeds the header");
        }
        if (extLength > 0) {
            final ByteBuf ext = in.readSlice(extLength);
            final Map<String, String> map = new HashMap<>();
            while (ext.isReadable()) {
                if (ext.readableBytes() < 2) {
                    throw new HeaderException("truncated ext field key");
                }
                final String key = readString(ext, ext.readShort() & 0xFFFF, "ext key");
                if (ext.readableBytes() < 4) {
                    throw new HeaderException("truncated ext field value");
                }
                final String value = readString(ext, ext.readInt(), "ext value");
                if (key != null) {
                    map.put(key, value == null ? "" : value);
                }
            }
            cmd.extFields(map);
        }
    }

    private static String readString(final ByteBuf in, final int length, final String what) {
        if (length < 0 || length > in.readableBytes()) {
            throw new HeaderException("ROCKETMQ header " + what + " length " + length + " exceeds the header");
        }
        if (length == 0) {
            return null;
        }
        return in.readCharSequence(length, StandardCharsets.UTF_8).toString();
    }

    /** Encodes the header of {@code cmd} in its serialize type. */
    public static byte[] encode(final RemotingCommand cmd) {
        return cmd.serializeType() == SerializeType.ROCKETMQ ? encodeBinary(cmd) : encodeJson(cmd);
    }

    /** Writes the header of {@code cmd} in its serialize type at the writer index; returns its length. */
    public static int write(final RemotingCommand cmd, final ByteBuf out) {
        if (cmd.serializeType() == SerializeType.ROCKETMQ) {
            final byte[] header = encodeBinary(cmd);
            out.writeBytes(header);
            return header.length;
        }
        return JsonHeaderWriter.write(cmd, out);
    }

    static byte[] encodeJson(final RemotingCommand cmd) {
        final ByteBuf buf = Unpooled.buffer(256);
        try {
            JsonHeaderWriter.write(cmd, buf);
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    static byte[] encodeBinary(final RemotingCommand cmd) {
        final byte[] remark = cmd.remark() == null ? new byte[0] : cmd.remark().getBytes(StandardCharsets.UTF_8);
        int extLength = 0;
        final Map<String, String> ext = cmd.extFields();
        final Map<byte[], byte[]> encoded = new LinkedHashMap<>();
        if (ext != null) {
            for (Map.Entry<String, String> e : ext.entrySet()) {
                if (e.getKey() == null || e.getValue() == null) {
                    continue;
                }
                final byte[] k = e.getKey().getBytes(StandardCharsets.UTF_8);
                final byte[] v = e.getValue().getBytes(StandardCharsets.UTF_8);
                encoded.put(k, v);
                extLength += 2 + k.length + 4 + v.length;
            }
        }
        final ByteBuffer buf = ByteBuffer.allocate(BINARY_FIXED_LENGTH + remark.length + extLength);
        buf.putShort((short) cmd.code());
        buf.put((byte) LanguageCode.code(cmd.language()));
        buf.putShort((short) cmd.version());
        buf.putInt(cmd.opaque());
        buf.putInt(cmd.flag());
        buf.putInt(remark.length).put(remark);
        buf.putInt(extLength);
        for (Map.Entry<byte[], byte[]> e : encoded.entrySet()) {
            buf.putShort((short) e.getKey().length).put(e.getKey());
            buf.putInt(e.getValue().length).put(e.getValue());
        }
        return buf.array();
    }
}
