/**
 * RocketMQ Remoting conformance: the real Apache RocketMQ Java client ({@code rocketmq-client} 5.3.3) and raw sockets
 * against the broker jar, with the broker's Remoting port as the client's name-server address.
 */
package io.junction.conformance.remoting;
