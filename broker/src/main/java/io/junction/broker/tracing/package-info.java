/**
 * Spans of a message's walk through the broker (send, store, deliver, ack), recorded with the OpenTelemetry SDK and
 * exported over OTLP when {@code otel.endpoint} is set; the message's W3C trace context is its canonical
 * {@code traceparent}/{@code tracestate} properties, whatever protocol carried it.
 */
package io.junction.broker.tracing;
