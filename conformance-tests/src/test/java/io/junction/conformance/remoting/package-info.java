/**
 * RocketMQ Remoting conformance: the real Apache RocketMQ Java clients ({@code rocketmq-client} 5.3.3 in the test JVM,
 * 4.9.x in a child JVM driven by {@code RemotingClient4IT}) and raw sockets against the broker jar, with the broker's
 * Remoting port as the client's name-server address.
 */
package io.junction.conformance.remoting;
