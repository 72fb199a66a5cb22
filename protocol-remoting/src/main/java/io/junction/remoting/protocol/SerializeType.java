package io.junction.remoting.protocol;

/** How a frame's header is serialized: the high byte of the header-info word. */
public enum SerializeType {
    JSON(0),
    ROCKETMQ(1);

    private final int code;

    SerializeType(final int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The type for a header-info high byte, or null when unknown. */
    public static SerializeType of(final int code) {
        return switch (code) {
            case 0 -> JSON;
            case 1 -> ROCKETMQ;
            default -> null;
        };
    }
}
