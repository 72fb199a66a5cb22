/**
 * The AMQP 1.0 front-end: {@link io.junction.amqp.AmqpFrontEnd} (listeners, plain and TLS), {@code AmqpConnection}
 * (one per network connection: protocol header, the proton-j transport driven from the channel's event loop, output,
 * idle ticks), {@code FrameGuard} (frame order checked before proton-j acts), {@code SaslServer} (PLAIN and
 * ANONYMOUS through tenancy), {@code Endpoints} (sessions and links of a connection, its transactions and temporary
 * topics), {@code LinkAttacher} (terminus → core topic, consumer group and filter), the link handlers
 * {@code ProducerLink} (sends), {@code ConsumerLink} (POP driven by credit, dispositions), {@code BrowserLink} (queue
 * browsers) and {@code CoordinatorLink} ({@code LocalTransaction}), and {@code AmqpMessageMapping} / {@code TypedValues} / {@code AddressNames} /
 * {@code JmsSelectors} (the one place AMQP messages, addresses and selectors map onto the core).
 */
package io.junction.amqp;
