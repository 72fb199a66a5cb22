package io.junction.broker.tracing;

import io.junction.core.SendResult;
import io.junction.core.message.Message;
import io.junction.spi.TraceContextProperties;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The broker's spans of a message's walk, recorded with the OpenTelemetry SDK and exported over OTLP/HTTP:
 * {@code send} (a front-end hands a message to the core) with its child {@code store} (until it is stored under the
 * flush mode), {@code deliver} (handed to a consumer group) and {@code ack} (the group's consumer acknowledged it).
 *
 * <p>The message's W3C trace context travels as the canonical properties {@code traceparent}/{@code tracestate}
 * (see {@link TraceContextProperties}); every span of a message is a child of it, so a trace that began in a producer
 * on one protocol continues in consumers on any other. A message sent without one gets the context of its
 * {@code send} span, so its later spans still join one trace. Spans are batched and exported on the SDK's thread; when
 * tracing is off this class is not created at all.
 */
public final class MessageSpans implements AutoCloseable {

    private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
    private static final AttributeKey<String> GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
    private static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    private static final AttributeKey<String> PROTOCOL = AttributeKey.stringKey("junction.protocol");
    private static final String SYSTEM_NAME = "junction";

    private static final TextMapGetter<Map<String, String>> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(final Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(final Map<String, String> carrier, final String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };
    private static final TextMapSetter<Map<String, String>> SETTER = Map::put;

    private final SdkTracerProvider provider;
    private final Tracer tracer;

    private MessageSpans(final SdkTracerProvider provider) {
        this.provider = provider;
        this.tracer = provider.get("io.junction.broker");
    }

    /** Spans exported to {@code tracesUrl} (a collector's {@code /v1/traces}) in batches. */
    public static MessageSpans export(final String tracesUrl, final String serviceName, final Duration batchDelay) {
        final OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder().setEndpoint(tracesUrl).build();
        final SdkTracerProvider provider = SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(
                        Attributes.of(AttributeKey.stringKey("service.name"), serviceName))))
                .addSpanProcessor(BatchSpanProcessor.builder(exporter).setScheduleDelay(batchDelay).build())
                .build();
        return new MessageSpans(provider);
    }

    /** The spans of one send in progress and the message to store. */
    public record SendSpans(Span send, Span store, Message message) {
    }

    /**
     * Starts the {@code send} and {@code store} spans of a message; the message returned carries a trace context
     * (its own, or the send span's when it came without one).
     */
    public SendSpans sendStarted(final Message message, final String protocol) {
        final Context parent = extract(message.properties());
        final Span send = tracer.spanBuilder("send " + message.topic()).setParent(parent)
                .setSpanKind(SpanKind.SERVER).setAllAttributes(attributes(message.topic(), "send", protocol))
                .startSpan();
        final Span store = tracer.spanBuilder("store " + message.topic()).setParent(parent.with(send))
                .setSpanKind(SpanKind.INTERNAL).startSpan();
        Message stored = message;
        if (message.property(TraceContextProperties.TRACEPARENT) == null) {
            final Map<String, String> props = new LinkedHashMap<>(message.properties());
            W3CTraceContextPropagator.getInstance().inject(Context.root().with(send), props, SETTER);
            stored = new Message(message.topic(), message.queueId(), message.body(), message.flag(), props,
                    message.sysFlag(), message.bornTimestamp(), message.bornHost(), message.reconsumeTimes());
        }
        return new SendSpans(send, store, stored);
    }

    /** Ends the spans of a send: stored ({@code result}) or refused ({@code failure}). */
    public void sendEnded(final SendSpans spans, final SendResult result, final Throwable failure) {
        if (failure != null) {
            spans.store().setStatus(StatusCode.ERROR, String.valueOf(failure.getMessage()));
            spans.send().setStatus(StatusCode.ERROR, String.valueOf(failure.getMessage()));
        } else if (result != null) {
            spans.send().setAttribute(MESSAGE_ID, result.uniqueId());
        }
        spans.store().end();
        spans.send().end();
    }

    /** A message with these properties was handed to a consumer of {@code group}. */
    public void delivered(final String protocol, final String group, final String topic,
                          final Map<String, String> properties) {
        instant("deliver " + topic, SpanKind.PRODUCER, protocol, group, topic, properties, "deliver");
    }

    /** A consumer of {@code group} acknowledged a message with this trace context. */
    public void acked(final String protocol, final String group, final String topic, final String traceparent,
                      final String tracestate) {
        final Map<String, String> carrier = new LinkedHashMap<>();
        carrier.put(TraceContextProperties.TRACEPARENT, traceparent);
        if (tracestate != null) {
            carrier.put(TraceContextProperties.TRACESTATE, tracestate);
        }
        instant("ack " + topic, SpanKind.SERVER, protocol, group, topic, carrier, "settle");
    }

    private void instant(final String name, final SpanKind kind, final String protocol, final String group,
                         final String topic, final Map<String, String> carrier, final String operation) {
        final Span span = tracer.spanBuilder(name).setParent(extract(carrier)).setSpanKind(kind)
                .setAllAttributes(attributes(topic, operation, protocol)).setAttribute(GROUP, group).startSpan();
        span.end();
    }

    private static Attributes attributes(final String topic, final String operation, final String protocol) {
        return Attributes.of(SYSTEM, SYSTEM_NAME, DESTINATION, topic, OPERATION, operation, PROTOCOL, protocol);
    }

    private static Context extract(final Map<String, String> properties) {
        return W3CTraceContextPropagator.getInstance().extract(Context.root(), properties, GETTER);
    }

    @Override
    public void close() {
        provider.shutdown().join(5, TimeUnit.SECONDS); // exports what is batched
    }
}
