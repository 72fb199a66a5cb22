package io.junction.remoting.protocol;

/** Response codes (RocketMQ's {@code RemotingSysResponseCode} and {@code ResponseCode}). */
public final class ResponseCode {
    public static final int SUCCESS = 0;
    public static final int SYSTEM_ERROR = 1;
    public static final int SYSTEM_BUSY = 2;
    public static final int REQUEST_CODE_NOT_SUPPORTED = 3;
    public static final int MESSAGE_ILLEGAL = 13;
    public static final int SERVICE_NOT_AVAILABLE = 14;
    public static final int NO_PERMISSION = 16;
    public static final int TOPIC_NOT_EXIST = 17;
    public static final int PULL_NOT_FOUND = 19;
    public static final int PULL_RETRY_IMMEDIATELY = 20;
    public static final int PULL_OFFSET_MOVED = 21;
    public static final int QUERY_NOT_FOUND = 22;
    public static final int SUBSCRIPTION_PARSE_FAILED = 23;
    public static final int SUBSCRIPTION_GROUP_NOT_EXIST = 26;
    public static final int INVALID_PARAMETER = 29;
    public static final int NO_MESSAGE = 208;
    public static final int POLLING_TIMEOUT = 210;

    private ResponseCode() {
    }
}
