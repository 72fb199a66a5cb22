package io.junction.remoting.protocol;

import io.netty.buffer.ByteBuf;
import java.util.HashMap;
import java.util.Map;

/**
 * One Remoting command, request or response: the logical header fields plus a body.
 *
 * <p>A decoded command carries its body as bytes ({@link #body()}); an outgoing one may instead carry a
 * {@link ByteBuf} ({@link #payload()}), e.g. stored records wrapped without copying, which the encoder writes and
 * releases.
 */
public final class RemotingCommand {
    /** Flag bit 0: this is a response. */
    public static final int FLAG_RESPONSE = 1;
    /** Flag bit 1: a request that expects no response. */
    public static final int FLAG_ONEWAY = 2;
    /** {@code MQVersion.Version.V5_3_3} ordinal: what this server claims to be. */
    public static final int SERVER_VERSION = 479;

    private int code;
    private String language = "JAVA";
    private int version = SERVER_VERSION;
    private int opaque;
    private int flag;
    private String remark;
    private Map<String, String> extFields;
    private byte[] body;
    private ByteBuf payload;
    private SerializeType serializeType = SerializeType.JSON;

    public RemotingCommand() {
    }

    /** A request to send to a client. */
    public static RemotingCommand request(final int code, final int opaque, final boolean oneway) {
        final RemotingCommand c = new RemotingCommand();
        c.code = code;
        c.opaque = opaque;
        c.flag = oneway ? FLAG_ONEWAY : 0;
        return c;
    }

    /** A response to {@code request} (same opaque and serialization type). */
    public static RemotingCommand responseTo(final RemotingCommand request, final int code, final String remark) {
        final RemotingCommand c = new RemotingCommand();
        c.code = code;
        c.opaque = request.opaque;
        c.flag = FLAG_RESPONSE;
        c.remark = remark;
        c.serializeType = request.serializeType;
        return c;
    }

    public int code() {
        return code;
    }

    public RemotingCommand code(final int code) {
        this.code = code;
        return this;
    }

    public String language() {
        return language;
    }

    public RemotingCommand language(final String language) {
        this.language = language;
        return this;
    }

    public int version() {
        return version;
    }

    public RemotingCommand version(final int version) {
        this.version = version;
        return this;
    }

    public int opaque() {
        return opaque;
    }

    public RemotingCommand opaque(final int opaque) {
        this.opaque = opaque;
        return this;
    }

    public int flag() {
        return flag;
    }

    public RemotingCommand flag(final int flag) {
        this.flag = flag;
        return this;
    }

    public boolean isResponse() {
        return (flag & FLAG_RESPONSE) != 0;
    }

    public boolean isOneway() {
        return (flag & FLAG_ONEWAY) != 0;
    }

    public String remark() {
        return remark;
    }

    public RemotingCommand remark(final String remark) {
        this.remark = remark;
        return this;
    }

    /** The custom header fields; null when the command has none. */
    public Map<String, String> extFields() {
        return extFields;
    }

    public RemotingCommand extFields(final Map<String, String> extFields) {
        this.extFields = extFields;
        return this;
    }

    /** Sets one custom header field (null values are skipped, as the Java client does). */
    public RemotingCommand put(final String name, final Object value) {
        if (value != null) {
            if (extFields == null) {
                extFields = new HashMap<>();
            }
            extFields.put(name, String.valueOf(value));
        }
        return this;
    }

    /** A custom header field, or null. */
    public String field(final String name) {
        return extFields == null ? null : extFields.get(name);
    }

    /** A required custom header field. */
    public String requireField(final String name) {
        final String v = field(name);
        if (v == null || v.isEmpty()) {
            throw new HeaderException("the header field '" + name + "' is missing");
        }
        return v;
    }

    public int intField(final String name, final int defaultValue) {
        final String v = field(name);
        if (v == null || v.isEmpty()) {
            return defaultValue;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new HeaderException("the header field '" + name + "' is not an int: " + v);
        }
    }

    public int requireInt(final String name) {
        requireField(name);
        return intField(name, 0);
    }

    public long longField(final String name, final long defaultValue) {
        final String v = field(name);
        if (v == null || v.isEmpty()) {
            return defaultValue;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new HeaderException("the header field '" + name + "' is not a long: " + v);
        }
    }

    public long requireLong(final String name) {
        requireField(name);
        return longField(name, 0);
    }

    public boolean boolField(final String name, final boolean defaultValue) {
        final String v = field(name);
        return v == null || v.isEmpty() ? defaultValue : Boolean.parseBoolean(v.trim());
    }

    public byte[] body() {
        return body;
    }

    public RemotingCommand body(final byte[] body) {
        this.body = body;
        return this;
    }

    public ByteBuf payload() {
        return payload;
    }

    /** An outgoing body the encoder writes and releases. */
    public RemotingCommand payload(final ByteBuf payload) {
        this.payload = payload;
        return this;
    }

    public SerializeType serializeType() {
        return serializeType;
    }

    public RemotingCommand serializeType(final SerializeType serializeType) {
        this.serializeType = serializeType;
        return this;
    }

    /** Length of the body in bytes. */
    public int bodyLength() {
        if (payload != null) {
            return payload.readableBytes();
        }
        return body == null ? 0 : body.length;
    }

    @Override
    public String toString() {
        return "RemotingCommand[code=" + code + ", opaque=" + opaque + ", flag=" + flag + ", remark=" + remark
                + ", extFields=" + extFields + ", body=" + bodyLength() + "B]";
    }
}
