/**
 * AMQP 1.0 side-by-side with ActiveMQ Artemis: {@link io.junction.bench.amqp.ArtemisPeer} (Artemis embedded, AMQP
 * acceptor, persistence on) and {@link io.junction.bench.amqp.JmsQueueLoad} (the same Qpid JMS load against either
 * broker). Both run in JVMs of their own on Netty 4.1, started by {@code scripts/amqp-vs-artemis.sh}.
 */
package io.junction.bench.amqp;
