/**
 * RocketMQ Remoting front-end: one Netty listener ({@code remoting.port}, 9876 by default) playing both the name-server
 * role (routes, cluster info: every topic lives on this node) and the broker role (send, pull with long polling,
 * offsets, client management, transactions, POP, admin), so a stock RocketMQ client configured with
 * {@code namesrvAddr=host:9876} works unchanged.
 *
 * <p>Pipeline per connection: connection counter, idle timeout, {@link io.junction.remoting.protocol.RemotingEncoder}
 * (shared), {@link io.junction.remoting.protocol.RemotingDecoder} (per channel, hard frame limit), then the shared
 * {@link io.junction.remoting.RemotingHandler} dispatching by request code to the processors in
 * {@link io.junction.remoting.processor}. Nothing blocks an event loop: processors call the asynchronous
 * {@code Messaging} facade and answer when its futures complete; a connection stops being read while its responses
 * pile up above the write-buffer high water mark, and has a cap on requests in progress.
 *
 * <p>Message mapping (Remoting ⇄ canonical): topic, queue id, body (as sent, compressed or not: the sys flag says
 * how), flag, sys flag and the property string (TAGS, KEYS, UNIQ_KEY, DELAY, TIMER_*, TRAN_MSG, user properties) are
 * stored unchanged; records are RocketMQ's stored-message layout, so pull, query and view bodies are the stored
 * records themselves. Offset message ids are the core's (store host = {@code broker.host}:{@code remoting.port}).
 */
package io.junction.remoting;
