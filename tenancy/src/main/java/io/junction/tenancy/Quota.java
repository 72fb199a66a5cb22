package io.junction.tenancy;

/**
 * The limits of one namespace; 0 means unlimited.
 *
 * @param messagesPerSecond publishes accepted per second, over every protocol
 * @param bytesPerSecond    published body bytes accepted per second
 * @param maxConnections    connections open at once (MQTT, AMQP, Remoting and gRPC clients; HTTP requests are not
 *                          connections)
 */
public record Quota(long messagesPerSecond, long bytesPerSecond, int maxConnections) {

    public static final Quota UNLIMITED = new Quota(0, 0, 0);

    /** Highest rate: the token buckets count in nano-units of a long. */
    public static final long MAX_RATE = 4_000_000_000L;

    public Quota {
        if (messagesPerSecond < 0 || bytesPerSecond < 0 || maxConnections < 0) {
            throw new IllegalArgumentException("quota values are 0 (unlimited) or positive");
        }
        if (messagesPerSecond > MAX_RATE || bytesPerSecond > MAX_RATE) {
            throw new IllegalArgumentException("a rate is at most " + MAX_RATE + " per second");
        }
    }

    public boolean unlimited() {
        return messagesPerSecond == 0 && bytesPerSecond == 0 && maxConnections == 0;
    }
}
