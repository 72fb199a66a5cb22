package io.junction.bench.remoting;

import io.junction.bench.measure.LatencyRecorder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * {@code threads} threads sending synchronously in a loop until the time is up, thread t through producer t mod the
 * producers' count (several producers, each given another name server, split the load over several entry points,
 * such as proxies); every send's latency is kept (only acknowledged sends count and are timed).
 */
final class SendPhase {
    private SendPhase() {
    }

    /**
     * What one phase did.
     *
     * @param sent    sends acknowledged with SEND_OK
     * @param failed  sends that threw or came back with another status
     * @param nanos   phase duration
     * @param latency send latency percentiles (nanoseconds) of the acknowledged sends
     */
    record Result(long sent, long failed, long nanos, LatencyRecorder.Percentiles latency) {
        double perSecond() {
            return sent * 1e9 / nanos;
        }
    }

    static Result run(final List<DefaultMQProducer> producers, final String topic, final byte[] body,
                      final int threads, final long seconds) throws InterruptedException {
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        final List<LatencyRecorder> recorders = new ArrayList<>();
        final List<Thread> senders = new ArrayList<>();
        final AtomicLong failed = new AtomicLong();
        final long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            final LatencyRecorder recorder = new LatencyRecorder();
            recorders.add(recorder);
            final DefaultMQProducer producer = producers.get(t % producers.size());
            final Thread sender = new Thread(() -> {
                while (System.nanoTime() < end) {
                    final long before = System.nanoTime();
                    try {
                        // A new Message each time: the client writes its unique id and more into it.
                        if (producer.send(new Message(topic, body)).getSendStatus() == SendStatus.SEND_OK) {
                            recorder.record(System.nanoTime() - before);
                        } else {
                            failed.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failed.incrementAndGet();
                    }
                }
            }, "sender-" + t);
            senders.add(sender);
            sender.start();
        }
        for (Thread sender : senders) {
            sender.join();
        }
        final long nanos = System.nanoTime() - start;
        final LatencyRecorder.Percentiles latency = LatencyRecorder.merge(recorders);
        return new Result(latency.count(), failed.get(), nanos, latency);
    }
}
