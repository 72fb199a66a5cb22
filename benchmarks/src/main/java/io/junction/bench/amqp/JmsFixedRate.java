package io.junction.bench.amqp;

import io.junction.bench.measure.FixedRateDriver;
import io.junction.bench.measure.FixedRateReport;
import io.junction.bench.measure.OpenLoopLatency;
import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.qpid.jms.JmsConnectionFactory;

/**
 * Fixed-rate (open-loop) JMS over AMQP 1.0 with Qpid JMS, the same client for Junction and Artemis: {@code producers}
 * sender threads of the {@link FixedRateDriver}, each with its own connection, session and producer, send persistent
 * 1 KiB BytesMessages to one queue at {@code rate} per second in total (Qpid JMS's {@code send} of a persistent message
 * returns once the broker accepted it, so send-ack latency includes the broker's durability), while {@code consumers}
 * connections with AUTO_ACKNOWLEDGE listeners take them. Each body starts with its intended send time; latencies are
 * measured from it.
 *
 * <p>Usage: {@code JmsFixedRate <amqp-uri> <rate> <warmup-s> <duration-s> <producers> <consumers> [label
 * [broker-pid]]}; prints one {@link FixedRateReport} line; exit status 0 when every send was accepted and arrived.
 */
public final class JmsFixedRate {
    private static final int SIZE = 1024;

    private JmsFixedRate() {
    }

    public static void main(final String[] args) throws Exception {
        final JmsConnectionFactory factory = new JmsConnectionFactory(args[0]);
        final double rate = Double.parseDouble(args[1]);
        final int warmup = Integer.parseInt(args[2]);
        final int duration = Integer.parseInt(args[3]);
        final int producers = Integer.parseInt(args[4]);
        final int consumers = Integer.parseInt(args[5]);
        final String label = args.length > 6 ? args[6] : "";
        final long[] brokerPids = args.length > 7 ? new long[] {Long.parseLong(args[7])} : new long[0];
        final String queue = "rate-" + Long.toString(System.nanoTime(), 36);

        final FixedRateDriver driver = new FixedRateDriver(rate, warmup, duration, producers, brokerPids);
        final OpenLoopLatency latency = driver.latency();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Connection> connections = Collections.synchronizedList(new ArrayList<>());
        for (int k = 0; k < consumers; k++) {
            final Connection c = factory.createConnection();
            connections.add(c);
            final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            s.createConsumer(s.createQueue(queue)).setMessageListener(m -> {
                try {
                    latency.delivered(((BytesMessage) m).readLong());
                } catch (JMSException e) {
                    failure.compareAndSet(null, e);
                }
            });
            c.setExceptionListener(e -> failure.compareAndSet(null, e));
            c.start();
        }
        final byte[] filler = new byte[SIZE - Long.BYTES];
        // Each sender thread of the driver keeps its own connection, session and producer (a JMS session is
        // single-threaded); created on its first slot, during the warm-up.
        final ThreadLocal<Sender> senders = ThreadLocal.withInitial(() -> {
            try {
                final Connection c = factory.createConnection();
                connections.add(c);
                final Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                final MessageProducer p = s.createProducer(s.createQueue(queue));
                p.setDeliveryMode(DeliveryMode.PERSISTENT);
                return new Sender(s, p);
            } catch (JMSException e) {
                throw new IllegalStateException(e);
            }
        });
        driver.run((slot, intended) -> {
            final Sender sender = senders.get();
            final BytesMessage m = sender.session().createBytesMessage();
            m.writeLong(intended);
            m.writeBytes(filler);
            sender.producer().send(m);
            latency.acked(intended);
        });
        final boolean drained = FixedRateDriver.await(() -> failure.get() != null
                || latency.acked() + latency.failed() >= latency.sent() && latency.delivered() >= latency.acked(), 120);
        final FixedRateReport report = driver.report(1);
        synchronized (connections) {
            for (Connection c : connections) {
                c.close();
            }
        }
        System.out.println(report.line(label) + " producers=" + producers + " consumers=" + consumers + " size=" + SIZE
                + " drained=" + drained + (failure.get() == null ? "" : " failure=" + failure.get().toString()
                .replace(' ', '_')));
        System.exit(report.missing() > 0 || report.failed() > 0 || failure.get() != null ? 2 : 0);
    }

    private record Sender(Session session, MessageProducer producer) {
    }
}
