/**
 * RocketMQ Remoting load: {@link io.junction.bench.remoting.RemotingLoad} drives any broker that speaks Remoting
 * (Junction, Apache RocketMQ) with the real {@code rocketmq-client} 5.3.x: sync sends from many threads for a fixed
 * time, then a push consumer draining everything. {@code benchmarks/scripts/remoting-vs-rocketmq.sh} runs it against
 * Junction and Apache RocketMQ side by side. The client is not in {@code benchmarks.jar} (it needs Netty 4.1, the jar
 * carries 4.2): the script runs this package from {@code target/classes} on RocketMQ's own classpath.
 */
package io.junction.bench.remoting;
