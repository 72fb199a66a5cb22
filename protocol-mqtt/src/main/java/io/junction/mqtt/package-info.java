/**
 * The MQTT 3.1.1 and 5.0 front-end: {@link io.junction.mqtt.MqttFrontEnd} (listener and WebSocket route),
 * {@code MqttConnection} (one per network connection: CONNECT, inbound PUBLISH and acknowledgements),
 * {@code Session} (subscriptions, in-flight window, redelivery), {@code TopicReader} / {@code SharedReader} (PULL by
 * offset and POP for shared subscriptions), {@code RetainedStore} and {@code SessionStore} (durable logs in the
 * front-end's own core topics), and {@code MqttMessageMapping} / {@code CoreTopics} (the one place the MQTT model maps
 * onto the core message).
 */
package io.junction.mqtt;
