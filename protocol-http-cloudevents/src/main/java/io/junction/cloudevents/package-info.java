/**
 * CloudEvents over HTTP: binary, structured and batched ingress at {@code POST /topics/{topic}} (decoding and
 * validation in {@link io.junction.cloudevents.EventDecoder}), the event/message mapping in one place
 * ({@link io.junction.cloudevents.CloudEventMapping}), and subscriptions as POP consumer groups, pulled over HTTP or
 * pushed to sinks by {@link io.junction.cloudevents.PushDispatcher}.
 */
package io.junction.cloudevents;
