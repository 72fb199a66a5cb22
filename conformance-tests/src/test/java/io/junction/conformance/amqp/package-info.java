/**
 * AMQP 1.0 conformance: Qpid JMS (the JMS 2.0 API over AMQP 1.0), raw sockets speaking AMQP frames, and the Node.js
 * client rhea against the broker jar. One broker per test class ({@link io.junction.conformance.support.WithBroker}).
 */
package io.junction.conformance.amqp;
