package io.junction.spi;

/**
 * The W3C Trace Context of a message as canonical message properties, the same on every protocol: MQTT 5 user
 * properties, AMQP application properties, RocketMQ message properties and Kafka headers carry them under these
 * names as they are; CloudEvents carries them as its Distributed Tracing extension attributes of the same names
 * (not as {@code CE_} properties), so a trace started by a producer on one protocol reaches consumers on all.
 */
public final class TraceContextProperties {

    /** {@code version-traceid-parentid-flags}, e.g. {@code 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01}. */
    public static final String TRACEPARENT = "traceparent";
    /** Vendor-specific trace state accompanying {@link #TRACEPARENT}. */
    public static final String TRACESTATE = "tracestate";

    private TraceContextProperties() {
    }

    /** True for {@link #TRACEPARENT} and {@link #TRACESTATE}. */
    public static boolean isTraceContext(final String name) {
        return TRACEPARENT.equals(name) || TRACESTATE.equals(name);
    }
}
