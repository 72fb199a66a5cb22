package io.junction.bench.amqp;

import com.sun.management.OperatingSystemMXBean;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.qpid.jms.JmsConnectionFactory;

/**
 * The Qpid JMS load both brokers get: persistent 1 KiB messages on a queue, produced then consumed.
 *
 * <p>Produce phase: {@code producers} threads, each on its own connection and session, send their share of
 * {@code messages} persistent BytesMessages with plain {@code send} (Qpid JMS waits for each persistent send to be
 * accepted, so the broker's durability is on the clock). Consume phase: {@code consumers} connections, each with an
 * AUTO_ACKNOWLEDGE consumer (default prefetch) and a message listener, take all of them. Each phase is timed from its
 * start to its last message; a warm-up of {@code messages / 5} on another queue runs first.
 *
 * <p>Usage: {@code JmsQueueLoad <amqp-uri> <messages> <producers> <consumers> [size [broker-pid [warmup]]]}:
 * first a warm-up round of {@code warmup} messages (default a fifth of {@code messages}; -1 for no broker pid) on
 * another queue, then the measured round; prints
 * {@code RESULT produce_msgs_per_s=<n> consume_msgs_per_s=<n> load_cpu_us_per_msg=<produce>/<consume>} (the
 * load process's own CPU per message in each phase, to tell a client-bound phase from a broker-bound one), and with a
 * broker process id also {@code broker_phase_cpu_us_per_msg=<produce>/<consume>}: the broker's CPU per message in each
 * measured phase, read from {@code /proc} at the phase boundaries.
 */
public final class JmsQueueLoad {
    /** The broker's process id, or -1 when not given. */
    private static long brokerPid = -1;

    private JmsQueueLoad() {
    }

    public static void main(final String[] args) throws Exception {
        final String uri = args[0];
        final int messages = Integer.parseInt(args[1]);
        final int producers = Integer.parseInt(args[2]);
        final int consumers = Integer.parseInt(args[3]);
        final int size = args.length > 4 ? Integer.parseInt(args[4]) : 1024;
        brokerPid = args.length > 5 ? Long.parseLong(args[5]) : -1;
        final int warmup = args.length > 6 ? Integer.parseInt(args[6]) : messages / 5;
        final JmsConnectionFactory factory = new JmsConnectionFactory(uri);
        final String run = Long.toString(System.nanoTime(), 36);
        run(factory, "warmup-" + run, Math.max(producers, warmup), producers, consumers, size);
        final double[] result = run(factory, "bench-" + run, messages, producers, consumers, size);
        System.out.printf("RESULT produce_msgs_per_s=%.0f consume_msgs_per_s=%.0f load_cpu_us_per_msg=%.0f/%.0f%s%n",
                result[0], result[1], result[2], result[3], brokerPid < 0 ? ""
                        : String.format(" broker_phase_cpu_us_per_msg=%.0f/%.0f", result[4], result[5]));
    }

    private static double[] run(final JmsConnectionFactory factory, final String queueName, final int messages,
                                final int producers, final int consumers, final int size) throws Exception {
        final byte[] body = new byte[size];
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final CountDownLatch produced = new CountDownLatch(producers);
        final List<Thread> threads = new ArrayList<>();
        final long produceStart = System.nanoTime();
        final long cpuAtStart = cpuNanos();
        final long brokerAtStart = brokerCpuNanos();
        for (int p = 0; p < producers; p++) {
            final int share = messages / producers + (p < messages % producers ? 1 : 0);
            threads.add(started(() -> {
                try (Connection c = factory.createConnection()) {
                    final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    final MessageProducer producer = s.createProducer(s.createQueue(queueName));
                    producer.setDeliveryMode(DeliveryMode.PERSISTENT);
                    for (int i = 0; i < share; i++) {
                        final BytesMessage m = s.createBytesMessage();
                        m.writeBytes(body);
                        producer.send(m);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    produced.countDown();
                }
            }));
        }
        produced.await();
        final long produceNanos = System.nanoTime() - produceStart;
        final long cpuAfterProduce = cpuNanos();
        final long brokerAfterProduce = brokerCpuNanos();
        check(failure);
        System.err.printf("%s: produced %d messages in %.1f s; consuming%n", queueName, messages, produceNanos / 1e9);

        final AtomicInteger received = new AtomicInteger();
        final CountDownLatch consumed = new CountDownLatch(1);
        final List<Connection> consumerConnections = new ArrayList<>();
        final long consumeStart = System.nanoTime();
        for (int k = 0; k < consumers; k++) {
            // A listener per consumer (Qpid JMS calls it on its session thread): no hand-off to a receiving thread.
            final Connection c = factory.createConnection();
            consumerConnections.add(c);
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            final MessageConsumer consumer = s.createConsumer(s.createQueue(queueName));
            consumer.setMessageListener(m -> {
                if (received.incrementAndGet() == messages) {
                    consumed.countDown();
                }
            });
            c.setExceptionListener(e -> {
                failure.compareAndSet(null, e);
                consumed.countDown();
            });
            c.start();
        }
        consumed.await();
        final long consumeNanos = System.nanoTime() - consumeStart;
        final long cpuAfterConsume = cpuNanos();
        final long brokerAfterConsume = brokerCpuNanos();
        for (Connection c : consumerConnections) {
            c.close();
        }
        check(failure);
        for (Thread t : threads) {
            t.join();
        }
        return new double[] {messages * 1e9 / produceNanos, messages * 1e9 / consumeNanos,
            (cpuAfterProduce - cpuAtStart) / 1e3 / messages, (cpuAfterConsume - cpuAfterProduce) / 1e3 / messages,
            (brokerAfterProduce - brokerAtStart) / 1e3 / messages,
            (brokerAfterConsume - brokerAfterProduce) / 1e3 / messages};
    }

    /** CPU time of this (load) process: how much of the shared machine the client itself took. */
    private static long cpuNanos() {
        return ((OperatingSystemMXBean) ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** CPU time of the broker process (user + system, from /proc; clock ticks of 10 ms), or 0 without a pid. */
    private static long brokerCpuNanos() {
        if (brokerPid < 0) {
            return 0;
        }
        try {
            final String stat = Files.readString(Path.of("/proc", Long.toString(brokerPid),
                    "stat"));
            // Fields after the command name (which may hold spaces) start after the last ')'.
            final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static Thread started(final Runnable task) {
        final Thread t = new Thread(task);
        t.start();
        return t;
    }

    private static void check(final AtomicReference<Throwable> failure) throws Exception {
        if (failure.get() != null) {
            throw new IllegalStateException("load failed", failure.get());
        }
    }
}
